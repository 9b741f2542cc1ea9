/**
 * A minimal RFB (VNC) client for tests, over any byte stream (a TCP socket to the server, or the hub's
 * desktop WebSocket): protocol version 3.8, security type VncAuth, ClientInit, ServerInit, then one full
 * framebuffer update in Raw encoding at 32 bits per pixel, so a test can check the colour the server shows.
 */
import net from 'node:net';
import type WebSocket from 'ws';
import { vncAuthResponse } from './vnc.js';

/** A byte stream read by exact lengths. */
export interface ByteStream {
  write(bytes: Buffer): void;
  read(length: number): Promise<Buffer>;
  close(): void;
}

class ChunkReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private waiter: { length: number; resolve: (b: Buffer) => void; reject: (e: Error) => void } | null = null;
  private failure: Error | null = null;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    this.settle();
  }

  fail(error: Error): void {
    this.failure ??= error;
    this.settle();
  }

  read(length: number, timeoutMs: number): Promise<Buffer> {
    if (this.waiter) return Promise.reject(new Error('one read at a time'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        reject(new Error(`timed out reading ${length} bytes (${this.buffered} buffered)`));
      }, timeoutMs);
      this.waiter = {
        length,
        resolve: (b) => {
          clearTimeout(timer);
          resolve(b);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.settle();
    });
  }

  private settle(): void {
    const waiter = this.waiter;
    if (!waiter) return;
    if (this.buffered >= waiter.length) {
      const all = Buffer.concat(this.chunks);
      this.chunks = [all.subarray(waiter.length)];
      this.buffered = all.length - waiter.length;
      this.waiter = null;
      waiter.resolve(all.subarray(0, waiter.length));
    } else if (this.failure) {
      this.waiter = null;
      waiter.reject(this.failure);
    }
  }
}

export function tcpByteStream(port: number, timeoutMs = 10_000): Promise<ByteStream> {
  return new Promise((resolve, reject) => {
    const reader = new ChunkReader();
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.on('data', (chunk: Buffer) => {
      reader.push(chunk);
    });
    socket.on('close', () => {
      reader.fail(new Error('connection closed'));
    });
    socket.once('error', reject);
    socket.once('connect', () => {
      resolve({
        write: (bytes) => socket.write(bytes),
        read: (length) => reader.read(length, timeoutMs),
        close: () => socket.destroy(),
      });
    });
  });
}

/** An open WebSocket carrying RFB in binary messages (the hub's desktop stream). */
export function webSocketByteStream(ws: WebSocket, timeoutMs = 10_000): ByteStream {
  const reader = new ChunkReader();
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (isBinary) reader.push(data);
  });
  ws.on('close', (code, reason) => {
    reader.fail(new Error(`websocket closed ${code} ${reason.toString()}`));
  });
  return {
    write: (bytes) => {
      ws.send(bytes);
    },
    read: (length) => reader.read(length, timeoutMs),
    close: () => {
      ws.close();
    },
  };
}

export interface RfbSession {
  version: string;
  securityTypes: number[];
  width: number;
  height: number;
  name: string;
}

/** Runs the handshake up to ServerInit. Throws with the server's reason when authentication fails. */
export async function rfbHandshake(stream: ByteStream, password: string): Promise<RfbSession> {
  const version = (await stream.read(12)).toString('latin1');
  if (!/^RFB \d{3}\.\d{3}\n$/.test(version)) throw new Error(`not an RFB server: ${JSON.stringify(version)}`);
  stream.write(Buffer.from('RFB 003.008\n', 'latin1'));
  const count = (await stream.read(1)).readUInt8(0);
  if (count === 0) {
    const length = (await stream.read(4)).readUInt32BE(0);
    throw new Error(`server refused: ${(await stream.read(length)).toString('utf8')}`);
  }
  const securityTypes = [...(await stream.read(count))];
  if (!securityTypes.includes(2)) throw new Error(`no VncAuth among ${securityTypes.join(',')}`);
  stream.write(Buffer.from([2]));
  const challenge = await stream.read(16);
  stream.write(await vncAuthResponse(challenge, password));
  const result = (await stream.read(4)).readUInt32BE(0);
  if (result !== 0) {
    const length = (await stream.read(4)).readUInt32BE(0);
    throw new Error(`authentication failed: ${(await stream.read(length)).toString('utf8')}`);
  }
  stream.write(Buffer.from([1])); // ClientInit: shared
  const init = await stream.read(24);
  const nameLength = init.readUInt32BE(20);
  const name = (await stream.read(nameLength)).toString('utf8');
  return {
    version: version.trim(),
    securityTypes,
    width: init.readUInt16BE(0),
    height: init.readUInt16BE(2),
    name,
  };
}

/**
 * Asks for the whole screen in Raw encoding at 32 bits per pixel (red at bit 16, green 8, blue 0, little
 * endian) and returns the colour of the pixel at (x, y) from the first update covering it.
 */
export async function rfbPixelAt(
  stream: ByteStream,
  session: RfbSession,
  x: number,
  y: number,
): Promise<[number, number, number]> {
  const pixelFormat = Buffer.alloc(20);
  pixelFormat.writeUInt8(0, 0); // SetPixelFormat
  pixelFormat.writeUInt8(32, 4); // bits per pixel
  pixelFormat.writeUInt8(24, 5); // depth
  pixelFormat.writeUInt8(0, 6); // little endian
  pixelFormat.writeUInt8(1, 7); // true colour
  pixelFormat.writeUInt16BE(255, 8);
  pixelFormat.writeUInt16BE(255, 10);
  pixelFormat.writeUInt16BE(255, 12);
  pixelFormat.writeUInt8(16, 14);
  pixelFormat.writeUInt8(8, 15);
  pixelFormat.writeUInt8(0, 16);
  const encodings = Buffer.from([2, 0, 0, 1, 0, 0, 0, 0]); // SetEncodings: Raw only
  const request = Buffer.alloc(10);
  request.writeUInt8(3, 0); // FramebufferUpdateRequest, not incremental
  request.writeUInt16BE(session.width, 6);
  request.writeUInt16BE(session.height, 8);
  stream.write(Buffer.concat([pixelFormat, encodings, request]));
  for (let messages = 0; messages < 20; messages += 1) {
    const type = (await stream.read(1)).readUInt8(0);
    if (type === 2) continue; // Bell
    if (type === 3) {
      const header = await stream.read(7);
      await stream.read(header.readUInt32BE(3)); // ServerCutText
      continue;
    }
    if (type !== 0) throw new Error(`unexpected server message ${type}`);
    const rects = (await stream.read(3)).readUInt16BE(1);
    let found: [number, number, number] | null = null;
    for (let r = 0; r < rects; r += 1) {
      const rect = await stream.read(12);
      const [rx, ry, rw, rh, encoding] = [
        rect.readUInt16BE(0),
        rect.readUInt16BE(2),
        rect.readUInt16BE(4),
        rect.readUInt16BE(6),
        rect.readInt32BE(8),
      ];
      if (encoding !== 0) throw new Error(`unexpected encoding ${encoding}`);
      const pixels = await stream.read(rw * rh * 4);
      if (x >= rx && x < rx + rw && y >= ry && y < ry + rh) {
        const at = ((y - ry) * rw + (x - rx)) * 4;
        found = [pixels[at + 2] ?? 0, pixels[at + 1] ?? 0, pixels[at] ?? 0];
      }
    }
    if (found) return found;
  }
  throw new Error(`no update covered (${x}, ${y})`);
}
