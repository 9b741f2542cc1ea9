/**
 * Snappy's block format (not the framed one), the body encoding of Prometheus remote write 1.0: a varint of
 * the uncompressed length, then literals and copies. This encoder finds 4-byte matches through a hash table of
 * the last position of each hash, as the reference does, and emits copies with 1- or 2-byte offsets (a block
 * here is at most 64 KiB, so no offset needs more); a decoder of any conforming implementation reads it.
 */

/** Input is cut into blocks of this size, each compressed on its own (the reference's block size). */
const blockSize = 1 << 16;
const hashBits = 14;
const minMatch = 4;

function pushVarint(out: number[], value: number): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

function pushLiteral(out: number[], input: Uint8Array, from: number, to: number): void {
  const n = to - from - 1;
  if (n < 0) return;
  if (n < 60) out.push(n << 2);
  else if (n < 0x100) out.push(60 << 2, n);
  else if (n < 0x10000) out.push(61 << 2, n & 0xff, n >>> 8);
  else out.push(62 << 2, n & 0xff, (n >>> 8) & 0xff, n >>> 16);
  for (let i = from; i < to; i++) out.push(input[i] as number);
}

/** One copy of `length` (4…64) bytes from `offset` back (below 65,536). */
function pushCopy(out: number[], offset: number, length: number): void {
  if (length < 12 && offset < 2048) {
    // Copy with a 1-byte offset: length 4…11, offset below 2,048.
    out.push(1 | ((length - 4) << 2) | ((offset >>> 8) << 5), offset & 0xff);
  } else {
    out.push(2 | ((length - 1) << 2), offset & 0xff, offset >>> 8);
  }
}

function pushMatch(out: number[], offset: number, length: number): void {
  let left = length;
  // Pieces of at most 64 bytes, never leaving a remainder below the minimum copy of 4.
  while (left >= 68) {
    pushCopy(out, offset, 64);
    left -= 64;
  }
  if (left > 64) {
    pushCopy(out, offset, 60);
    left -= 60;
  }
  pushCopy(out, offset, left);
}

function load32(input: Uint8Array, at: number): number {
  return (
    ((input[at] as number) |
      ((input[at + 1] as number) << 8) |
      ((input[at + 2] as number) << 16) |
      ((input[at + 3] as number) << 24)) >>>
    0
  );
}

function hash(value: number): number {
  return Math.imul(value, 0x1e35a7bd) >>> (32 - hashBits);
}

function compressBlock(out: number[], input: Uint8Array, start: number, end: number): void {
  const table = new Int32Array(1 << hashBits).fill(-1);
  let literalFrom = start;
  let at = start;
  while (at + minMatch <= end) {
    const value = load32(input, at);
    const h = hash(value);
    const candidate = table[h] as number;
    table[h] = at;
    if (candidate >= start && load32(input, candidate) === value) {
      let length = minMatch;
      while (at + length < end && input[candidate + length] === input[at + length]) length++;
      pushLiteral(out, input, literalFrom, at);
      pushMatch(out, at - candidate, length);
      at += length;
      literalFrom = at;
    } else {
      at++;
    }
  }
  pushLiteral(out, input, literalFrom, end);
}

export function snappyEncode(input: Uint8Array): Uint8Array {
  const out: number[] = [];
  pushVarint(out, input.length);
  for (let start = 0; start < input.length; start += blockSize) {
    compressBlock(out, input, start, Math.min(input.length, start + blockSize));
  }
  return Uint8Array.from(out);
}
