import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { addressKey, createRefusalLog } from './refusal-log.js';

function rig(options: { linesPerSource?: number; linesPerWindow?: number; maxSources?: number } = {}) {
  const lines: { msg: string; source?: string | null; refusals?: number; kinds?: Record<string, number> }[] =
    [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as (typeof lines)[number]);
      done();
    },
  });
  let time = 1_000_000;
  const refusals = createRefusalLog({
    logger: createLogger('info', stream),
    now: () => time,
    ...options,
  });
  return {
    refusals,
    lines,
    advance: (ms: number) => {
      time += ms;
    },
  };
}

describe('refusal log', () => {
  it('admits a few lines per address a minute, then one summary line of the rest with what was refused', () => {
    const { refusals, lines, advance } = rig({ linesPerSource: 3 });
    const admitted = Array.from({ length: 1_000 }, (_, i) =>
      refusals.admit('203.0.113.9', i % 2 === 0 ? 'request' : 'agent credential'),
    ).filter(Boolean).length;
    expect(admitted).toBe(3);
    expect(refusals.admit('198.51.100.1', 'request')).toBe(true);

    advance(60_000);
    refusals.sweep();

    expect(lines).toEqual([
      {
        ...lines[0],
        msg: '997 more refusals from 203.0.113.9 in the last minute',
        source: '203.0.113.9',
        refusals: 997,
        kinds: { request: 498, 'agent credential': 499 },
      },
    ]);
    expect(refusals.size).toBe(0);
    expect(refusals.admit('203.0.113.9', 'request')).toBe(true);
  });

  it('summarizes on the next refusal of a source whose window has ended', () => {
    const { refusals, lines, advance } = rig({ linesPerSource: 1 });
    refusals.admit('203.0.113.9', 'request');
    refusals.admit('203.0.113.9', 'request');
    advance(61_000);
    expect(refusals.admit('203.0.113.9', 'request')).toBe(true);
    expect(lines.map((l) => l.msg)).toEqual(['1 more refusals from 203.0.113.9 in the last minute']);
  });

  it('bounds its memory and its lines however many addresses refuse', () => {
    const { refusals, lines, advance } = rig({ linesPerSource: 2, linesPerWindow: 50, maxSources: 100 });
    let admitted = 0;
    for (let i = 0; i < 20_000; i += 1) {
      if (refusals.admit(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, 'request')) admitted += 1;
    }
    expect(refusals.size).toBe(100);
    expect(admitted).toBe(50);

    advance(60_000);
    refusals.sweep();

    // One summary per address counted apart that had more than it logged, one for all the others.
    expect(lines.length).toBeLessThanOrEqual(101);
    const total = lines.reduce((sum, l) => sum + (l.refusals ?? 0), 0);
    expect(total).toBe(20_000 - 50);
    expect(lines.at(-1)?.msg).toBe('19900 more refusals from other addresses in the last minute');
    expect(refusals.size).toBe(0);
  });

  it('counts an IPv6 /64 as one source, and an IPv4-mapped address as its IPv4', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey(null)).toBe('unknown');
  });
});
