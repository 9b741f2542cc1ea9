import { describe, expect, it } from 'vitest';
import { Compile } from 'typebox/compile';
import { eventEnvelopeSchema, eventPayloads, eventTypes, eventVisible } from './events.js';

describe('eventVisible', () => {
  const only = (...ids: string[]) => new Set(ids);
  const table: [string, ReadonlySet<string> | null, string[], boolean][] = [
    ['unrestricted, event about an asset', null, ['a'], true],
    ['unrestricted, fleet-level event', null, [], true],
    ['restricted, its asset', only('a'), ['a'], true],
    ['restricted, one of several assets is its own', only('b'), ['a', 'b', 'c'], true],
    ['restricted, none of the assets', only('x'), ['a', 'b'], false],
    ['restricted, fleet-level event', only('a'), [], false],
    ['restricted to nothing', only(), ['a'], false],
  ];
  it.each(table)('%s', (_name, allowed, assets, expected) => {
    expect(eventVisible(allowed, assets)).toBe(expected);
  });
});

describe('event payload schemas', () => {
  it.each(eventTypes)('%s requires asset_ids and refuses unknown fields', (type) => {
    const check = Compile(eventPayloads[type]);
    expect(check.Check({})).toBe(false);
    const required: readonly string[] = eventPayloads[type].required;
    expect(required).toContain('asset_ids');
    expect(Object.getOwnPropertyDescriptor(eventPayloads[type], 'additionalProperties')?.value).toBe(false);
  });

  it('has a schema for every catalog type and nothing else', () => {
    expect(Object.keys(eventPayloads).sort()).toEqual([...eventTypes].sort());
  });

  it('the envelope carries id, type, ts and data, and refuses a type outside the catalog', () => {
    const check = Compile(eventEnvelopeSchema);
    const event = {
      id: 'evt_1',
      type: 'asset.created',
      ts: '2026-01-01T00:00:00.000Z',
      data: { asset_ids: [] },
    };
    expect(check.Check(event)).toBe(true);
    expect(check.Check({ ...event, type: 'asset.exploded' })).toBe(false);
    expect(check.Check({ ...event, data: {} })).toBe(false);
  });
});
