/**
 * The remote-write body as a receiver reads it: snappy block format decoded by a decoder written here from
 * the format description, then the protobuf WriteRequest decoded field by field.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { snappyEncode } from './snappy.js';
import { encodeWriteRequest, type RemoteSeries } from './write-request.js';

function readVarint(data: Uint8Array, at: number): [number, number] {
  let value = 0;
  let scale = 1;
  let pos = at;
  for (;;) {
    const byte = data[pos++];
    if (byte === undefined) throw new Error('truncated varint');
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, pos];
    scale *= 128;
  }
}

/** Snappy block format, as the format description gives it. */
function snappyDecode(data: Uint8Array): Uint8Array {
  const [length, start] = readVarint(data, 0);
  const out = new Uint8Array(length);
  let o = 0;
  let i = start;
  while (i < data.length) {
    const tag = data[i++] as number;
    const kind = tag & 3;
    if (kind === 0) {
      let n = tag >>> 2;
      if (n >= 60) {
        const bytes = n - 59;
        n = 0;
        for (let b = 0; b < bytes; b++) n |= (data[i++] as number) << (8 * b);
      }
      n += 1;
      out.set(data.subarray(i, i + n), o);
      i += n;
      o += n;
      continue;
    }
    let len: number;
    let offset: number;
    if (kind === 1) {
      len = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | (data[i++] as number);
    } else if (kind === 2) {
      len = (tag >>> 2) + 1;
      offset = (data[i] as number) | ((data[i + 1] as number) << 8);
      i += 2;
    } else {
      throw new Error('4-byte offsets are not expected');
    }
    if (offset === 0 || offset > o) throw new Error(`bad offset ${String(offset)} at ${String(o)}`);
    for (let k = 0; k < len; k++, o++) out[o] = out[o - offset] as number;
  }
  if (o !== length) throw new Error(`decoded ${String(o)} bytes, expected ${String(length)}`);
  return out;
}

interface Field {
  field: number;
  wire: number;
  value: number | Uint8Array;
}

function fields(data: Uint8Array): Field[] {
  const out: Field[] = [];
  let at = 0;
  while (at < data.length) {
    const [key, next] = readVarint(data, at);
    at = next;
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) {
      const [value, after] = readVarint(data, at);
      out.push({ field, wire, value });
      at = after;
    } else if (wire === 1) {
      out.push({ field, wire, value: Buffer.from(data.subarray(at, at + 8)).readDoubleLE(0) });
      at += 8;
    } else if (wire === 2) {
      const [len, after] = readVarint(data, at);
      out.push({ field, wire, value: data.subarray(after, after + len) });
      at = after + len;
    } else {
      throw new Error(`unexpected wire type ${String(wire)}`);
    }
  }
  return out;
}

function bytesOf(f: Field): Uint8Array {
  if (!(f.value instanceof Uint8Array)) throw new Error('not length-delimited');
  return f.value;
}

function decodeWriteRequest(data: Uint8Array): RemoteSeries[] {
  return fields(data).map((ts) => {
    expect(ts.field).toBe(1);
    const parts = fields(bytesOf(ts));
    return {
      labels: parts
        .filter((p) => p.field === 1)
        .map((p) => {
          const [name, value] = fields(bytesOf(p)).map((f) => Buffer.from(bytesOf(f)).toString('utf8'));
          return { name: name ?? '', value: value ?? '' };
        }),
      samples: parts
        .filter((p) => p.field === 2)
        .map((p) => {
          const [value, ts2] = fields(bytesOf(p));
          return { value: value?.value as number, timestampMs: ts2?.value as number };
        }),
    };
  });
}

describe('snappy block encoder', () => {
  it('round-trips empty, random, repetitive and long inputs', () => {
    const repetitive = Buffer.from('svc_cpu_percent asset_id=as_0123 '.repeat(5_000));
    const runs = Buffer.alloc(200_000, 7);
    for (const input of [Buffer.alloc(0), Buffer.from('a'), randomBytes(100_000), repetitive, runs]) {
      const encoded = snappyEncode(input);
      expect(Buffer.from(snappyDecode(encoded)).equals(input)).toBe(true);
    }
    // Repetition is actually compressed.
    expect(snappyEncode(repetitive).length).toBeLessThan(repetitive.length / 10);
    expect(snappyEncode(runs).length).toBeLessThan(runs.length / 20);
  });

  it('round-trips any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3_000 }), fc.integer({ min: 1, max: 40 }), (chunk, times) => {
        const input = Buffer.concat(Array.from({ length: times }, () => chunk));
        expect(Buffer.from(snappyDecode(snappyEncode(input))).equals(input)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('WriteRequest encoder', () => {
  it('encodes series, labels and samples as prompb reads them (doubles, int64 millisecond timestamps)', () => {
    const series: RemoteSeries[] = [
      {
        labels: [
          { name: '__name__', value: 'svc_cpu_percent' },
          { name: 'asset_id', value: 'as_1' },
          { name: 'name', value: 'wéb-1' },
        ],
        samples: [
          { value: 12.5, timestampMs: 1_795_000_000_123 },
          { value: -0.25, timestampMs: 1_795_000_001_000 },
        ],
      },
      { labels: [{ name: '__name__', value: 'svc_load1' }], samples: [{ value: 1e300, timestampMs: 0 }] },
    ];
    expect(decodeWriteRequest(snappyDecode(snappyEncode(encodeWriteRequest(series))))).toEqual(series);
  });
});
