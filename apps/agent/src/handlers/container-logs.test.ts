import { describe, expect, it } from 'vitest';
import { containerLimits } from '@svc/protocol';
import { demultiplex, logLines } from './container-logs.js';

function frame(stream: 1 | 2, text: string | Buffer): Buffer {
  const payload = typeof text === 'string' ? Buffer.from(text) : text;
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

describe('container log framing', () => {
  it('splits stdout and stderr frames into lines, in the order written', () => {
    const body = Buffer.concat([frame(1, 'one\n'), frame(2, 'oops\n'), frame(1, 'two\nthree\n')]);
    expect(logLines(body, false, false)).toEqual({
      entries: [
        { stream: 'stdout', text: 'one' },
        { stream: 'stderr', text: 'oops' },
        { stream: 'stdout', text: 'two' },
        { stream: 'stdout', text: 'three' },
      ],
      truncated: false,
    });
  });

  it('joins a line written over several frames, and a UTF-8 character split between them', () => {
    const snow = Buffer.from('☃');
    const body = Buffer.concat([
      frame(1, Buffer.concat([Buffer.from('half '), snow.subarray(0, 1)])),
      frame(1, Buffer.concat([snow.subarray(1), Buffer.from(' done\n')])),
    ]);
    expect(logLines(body, false, false).entries).toEqual([{ stream: 'stdout', text: 'half ☃ done' }]);
  });

  it('keeps a frame cut at the end of the read as far as it goes, and ignores a partial header', () => {
    const whole = Buffer.concat([frame(1, 'kept\n'), frame(2, 'cut short\n')]);
    expect(demultiplex(whole.subarray(0, whole.length - 4)).map((f) => f.data.toString())).toEqual([
      'kept\n',
      'cut sh',
    ]);
    const partialHeader = Buffer.concat([frame(1, 'kept\n'), Buffer.from([1, 0, 0])]);
    expect(demultiplex(partialHeader).map((f) => f.data.toString())).toEqual(['kept\n']);
  });

  it('stops at bytes that are not a frame header rather than misreading them', () => {
    expect(demultiplex(Buffer.from('plain text that is no frame at all'))).toEqual([]);
  });

  it('reads a TTY log raw: no framing, carriage returns dropped', () => {
    const body = Buffer.from('first\r\nsecond\r\n\u0001\u0000\u0000\u0000 not a header\r\n');
    expect(logLines(body, true, false).entries).toEqual([
      { stream: 'tty', text: 'first' },
      { stream: 'tty', text: 'second' },
      { stream: 'tty', text: '\u0001\u0000\u0000\u0000 not a header' },
    ]);
  });

  it('keeps the newest lines within the byte cap and says it cut', () => {
    const line = 'x'.repeat(1000);
    const count = Math.ceil(containerLimits.logBytes / 1000) + 10;
    const body = Buffer.from(Array.from({ length: count }, (_, i) => `${i}:${line}\n`).join(''));
    const { entries, truncated } = logLines(body, true, false);
    expect(truncated).toBe(true);
    expect(entries.at(-1)?.text.startsWith(`${count - 1}:`)).toBe(true);
    expect(entries.reduce((n, e) => n + e.text.length, 0)).toBeLessThanOrEqual(containerLimits.logBytes);
  });

  it('reports a read the engine had more for as truncated', () => {
    expect(logLines(frame(1, 'a\n'), false, true).truncated).toBe(true);
  });
});
