import type { DesktopRecording } from '@svc/protocol';
import { describe, expect, it } from 'vitest';
import { DesktopReplayChannel, type ReplayProgress } from './desktop-replay-channel';

/** A clock the test moves by hand. */
function manualClock() {
  let now = 0;
  let nextId = 1;
  const timers = new Map<number, { at: number; run: () => void }>();
  return {
    now: () => now,
    clock: {
      setTimeout: (run: () => void, ms: number) => {
        const id = nextId++;
        timers.set(id, { at: now + ms, run });
        return id;
      },
      clearTimeout: (id: number) => {
        timers.delete(id);
      },
    },
    advance(ms: number) {
      const until = now + ms;
      for (;;) {
        const due = [...timers.entries()]
          .filter(([, t]) => t.at <= until)
          .sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].run();
      }
      now = until;
    },
  };
}

const recording: DesktopRecording = {
  header: { version: 1, started_at: '2026-11-26T02:00:00.000Z' },
  truncated: false,
  frames: [
    { atMs: 0, bytes: Uint8Array.of(0xaa) },
    { atMs: 1000, bytes: Uint8Array.of(0xbb, 0xbc) },
    { atMs: 4000, bytes: Uint8Array.of(0xcc) },
  ],
};

describe('the desktop replay channel', () => {
  it('answers the handshake with no password, then plays the frames at their times and speed', () => {
    const time = manualClock();
    const progress: ReplayProgress[] = [];
    const channel = new DesktopReplayChannel(recording, {
      speed: 2,
      clock: time.clock,
      now: time.now,
      onProgress: (p) => progress.push(p),
    });
    const seen: number[][] = [];
    let opened = false;
    channel.onopen = () => {
      opened = true;
    };
    channel.onmessage = (event) => seen.push([...new Uint8Array(event.data)]);
    time.advance(0);
    expect(opened).toBe(true);
    expect(String.fromCharCode(...(seen[0] ?? []))).toBe('RFB 003.008\n');

    channel.send(new TextEncoder().encode('RFB 003.008\n'));
    expect(seen).toHaveLength(1); // answers come on a later turn, as from a socket
    time.advance(0);
    expect(seen[1]).toEqual([1, 1]); // one security type: None
    channel.send(Uint8Array.of(1));
    time.advance(0);
    expect(seen[2]).toEqual([0, 0, 0, 0]); // SecurityResult OK
    channel.send(Uint8Array.of(1)); // ClientInit
    time.advance(0);
    expect(seen[3]).toEqual([0xaa]);
    time.advance(499);
    expect(seen).toHaveLength(4);
    time.advance(1);
    expect(seen[4]).toEqual([0xbb, 0xbc]);
    time.advance(1500);
    expect(seen[5]).toEqual([0xcc]);
    expect(progress.at(-1)).toEqual({ atMs: 4000, durationMs: 4000, done: true });
  });

  it('stops delivering once closed', () => {
    const time = manualClock();
    const channel = new DesktopReplayChannel(recording, { speed: 1, clock: time.clock, now: time.now });
    const seen: number[] = [];
    let closed = '';
    channel.onmessage = (event) => seen.push(event.data.byteLength);
    channel.onclose = (event) => {
      closed = event.reason;
    };
    time.advance(0);
    channel.send(new Uint8Array(14));
    time.advance(0);
    time.advance(0);
    channel.close();
    time.advance(10_000);
    expect(closed).toBe('replay closed');
    expect(seen).toEqual([12, 2, 4, 1]);
  });
});
