/**
 * Draws the mobile app's icons (public/m/icons/*.png): a hub mark, white on the accent blue, as real PNG files
 * in the sizes the manifest lists. Run by hand when the mark changes (`node scripts/make-icons.js`); the PNGs
 * are committed. Plain JavaScript, no image library: pixels, then zlib and the PNG chunks.
 */
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const outDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'public', 'm', 'icons');

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** @param {Buffer} bytes */
function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = (crcTable[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** @param {string} type @param {Buffer} data */
function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * @param {number} size
 * @param {boolean} maskable the mark within the safe zone (80 %), the background to the edges
 */
function drawIcon(size, maskable) {
  const rows = [];
  const c = size / 2;
  const scale = maskable ? 0.8 : 1;
  const radius = size * 0.22;
  for (let y = 0; y < size; y += 1) {
    const row = Buffer.alloc(1 + size * 4);
    for (let x = 0; x < size; x += 1) {
      // Rounded square background (full square when maskable).
      const dx = Math.max(Math.abs(x + 0.5 - c) - (c - radius), 0);
      const dy = Math.max(Math.abs(y + 0.5 - c) - (c - radius), 0);
      const inside = maskable || dx * dx + dy * dy <= radius * radius;
      const d = Math.hypot(x + 0.5 - c, y + 0.5 - c) / (size * scale);
      // The mark: a ring, a centre dot, four spokes.
      const ring = d > 0.28 && d < 0.36;
      const dot = d < 0.1;
      const spoke =
        d < 0.28 &&
        (Math.abs(x + 0.5 - c) < size * 0.025 * scale || Math.abs(y + 0.5 - c) < size * 0.025 * scale);
      const white = inside && (ring || dot || spoke);
      const o = 1 + x * 4;
      row[o] = white ? 255 : 0x1f;
      row[o + 1] = white ? 255 : 0x5f;
      row[o + 2] = white ? 255 : 0xcc;
      row[o + 3] = inside ? 255 : 0;
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

fs.mkdirSync(outDir, { recursive: true });
for (const [name, size, maskable] of /** @type {const} */ ([
  ['icon-192.png', 192, false],
  ['icon-512.png', 512, false],
  ['icon-maskable-512.png', 512, true],
  ['apple-touch-icon-180.png', 180, false],
])) {
  fs.writeFileSync(path.join(outDir, name), drawIcon(size, maskable));
}
process.stdout.write(`icons written to ${path.relative(process.cwd(), outDir)}\n`);
