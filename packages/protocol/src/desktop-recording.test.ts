import { describe, expect, it } from 'vitest';
import {
  DesktopRecorder,
  parseDesktopRecording,
  replayHandshake,
  type DesktopRecording,
} from './desktop-recording.js';

const text = (s: string) => new TextEncoder().encode(s);
const u32 = (n: number) => Uint8Array.of(n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255);
const join = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/** A ServerInit for a 4×2 screen named "desk". */
const serverInit = join(Uint8Array.of(0, 4, 0, 2), new Uint8Array(16).fill(7), u32(4), text('desk'));
const update = join(Uint8Array.of(0, 0, 0, 1), new Uint8Array(12), new Uint8Array(32).fill(200));

function recorder(maxBytes?: number) {
  const pieces: Uint8Array[] = [];
  let clock = 1000;
  const rec = new DesktopRecorder({
    startedAt: new Date('2026-11-26T02:00:00Z'),
    now: () => clock,
    ...(maxBytes === undefined ? {} : { maxBytes }),
    write: (b) => pieces.push(b.slice()),
  });
  return {
    rec,
    tick: (ms: number) => {
      clock += ms;
    },
    file: () => join(...pieces),
    parsed: (): DesktopRecording => {
      const result = parseDesktopRecording(join(...pieces));
      if (!result.ok) throw new Error(result.message);
      return result.value;
    },
  };
}

/** Feeds bytes one at a time, the worst split a network can make. */
function trickle(feed: (b: Uint8Array) => void, bytes: Uint8Array) {
  for (const b of bytes) feed(Uint8Array.of(b));
}

describe('the desktop recorder', () => {
  it('follows a 3.8 VncAuth handshake split anywhere and records only the server after it', () => {
    const r = recorder();
    trickle((b) => {
      r.rec.fromServer(b);
    }, text('RFB 003.008\n'));
    trickle((b) => {
      r.rec.fromClient(b);
    }, text('RFB 003.008\n'));
    r.rec.fromServer(Uint8Array.of(1, 2));
    r.rec.fromClient(Uint8Array.of(2));
    trickle((b) => {
      r.rec.fromServer(b);
    }, new Uint8Array(16).fill(9)); // challenge
    r.rec.fromClient(new Uint8Array(16).fill(0x55)); // the DES response: never recorded
    trickle((b) => {
      r.rec.fromServer(b);
    }, u32(0));
    expect(r.rec.isRecording).toBe(true);
    r.rec.fromClient(Uint8Array.of(1)); // ClientInit
    r.tick(5);
    r.rec.fromServer(serverInit);
    r.rec.fromClient(text('typed secret'));
    r.tick(250);
    r.rec.fromServer(update);

    const recording = r.parsed();
    expect(recording.header).toEqual({ version: 1, started_at: '2026-11-26T02:00:00.000Z' });
    expect(recording.truncated).toBe(false);
    expect(recording.frames.map((f) => f.atMs)).toEqual([5, 255]);
    expect(join(...recording.frames.map((f) => f.bytes))).toEqual(join(serverInit, update));
    const file = Buffer.from(r.file());
    expect(file.includes(Buffer.from('typed secret'))).toBe(false);
    expect(file.includes(Buffer.alloc(16, 0x55))).toBe(false);
  });

  it('follows RFB 3.3 with no authentication (the server names the type, no SecurityResult)', () => {
    const r = recorder();
    r.rec.fromServer(text('RFB 003.003\n'));
    r.rec.fromClient(text('RFB 003.003\n'));
    r.rec.fromServer(join(u32(1), serverInit));
    expect(r.parsed().frames.map((f) => f.bytes)).toEqual([serverInit]);
  });

  it('stops, saying why, on a failed password, a refusal or an encrypting security type', () => {
    const failed = recorder();
    failed.rec.fromServer(join(text('RFB 003.008\n'), Uint8Array.of(1, 2)));
    failed.rec.fromClient(join(text('RFB 003.008\n'), Uint8Array.of(2)));
    failed.rec.fromServer(join(new Uint8Array(16), u32(1), u32(6), text('denied')));
    expect(failed.rec.stoppedBecause).toBe('authentication failed');
    expect(failed.file()).toHaveLength(0);

    const vencrypt = recorder();
    vencrypt.rec.fromServer(join(text('RFB 003.008\n'), Uint8Array.of(1, 19)));
    vencrypt.rec.fromClient(join(text('RFB 003.008\n'), Uint8Array.of(19)));
    vencrypt.rec.fromServer(Uint8Array.of(0, 2));
    expect(vencrypt.rec.stoppedBecause).toBe('security type 19 encrypts the session; not recorded');

    const junk = recorder();
    junk.rec.fromServer(text('HTTP/1.1 200'));
    expect(junk.rec.stoppedBecause).toBe('the server did not speak RFB 3.x');
  });

  it('ends at its size bound with an end frame the parser reports as truncated', () => {
    const r = recorder(300);
    r.rec.fromServer(join(text('RFB 003.008\n'), Uint8Array.of(1, 1)));
    r.rec.fromClient(join(text('RFB 003.008\n'), Uint8Array.of(1)));
    r.rec.fromServer(u32(0));
    for (let i = 0; i < 10; i += 1) r.rec.fromServer(update);
    expect(r.file().length).toBeLessThanOrEqual(300);
    expect(r.rec.stoppedBecause).toBe('the recording reached its bound of 300 bytes');
    const recording = r.parsed();
    expect(recording.truncated).toBe(true);
    expect(recording.frames.length).toBeGreaterThan(0);
  });
});

describe('parsing a desktop recording', () => {
  it('refuses what is not one, or is cut short', () => {
    expect(parseDesktopRecording(text('asciicast'))).toMatchObject({ ok: false });
    const r = recorder();
    r.rec.fromServer(join(text('RFB 003.008\n'), Uint8Array.of(1, 1)));
    r.rec.fromClient(join(text('RFB 003.008\n'), Uint8Array.of(1)));
    r.rec.fromServer(join(u32(0), serverInit));
    const file = r.file();
    expect(parseDesktopRecording(file.subarray(0, file.length - 3))).toEqual({
      ok: false,
      message: expect.stringMatching(/runs past the end/) as unknown,
    });
  });

  it('replays behind a handshake that asks for no password', () => {
    const handshake = replayHandshake();
    expect(new TextDecoder().decode(handshake.version)).toBe('RFB 003.008\n');
    expect([...handshake.securityTypes]).toEqual([1, 1]);
    expect([...handshake.securityResult]).toEqual([0, 0, 0, 0]);
  });
});
