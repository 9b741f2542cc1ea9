/**
 * Plays a desktop recording (decision 0030) to noVNC: a channel with a WebSocket's shape that acts as the
 * server. It answers the version and the security choice itself (version 3.8, security None, SecurityResult
 * OK), waits for the ClientInit, then delivers the recorded bytes (ServerInit first) at their times divided
 * by the speed. What the viewer sends after that (update requests, pointer) is ignored.
 */
import { replayHandshake, type DesktopRecording } from '@svc/protocol';

/** What a channel reports to noVNC; the same constants as WebSocket's readyState. */
const states = { connecting: 0, open: 1, closing: 2, closed: 3 } as const;

export interface ReplayClock {
  setTimeout(run: () => void, ms: number): number;
  clearTimeout(id: number): void;
}

export interface ReplayProgress {
  /** Milliseconds of the recording delivered so far. */
  atMs: number;
  durationMs: number;
  done: boolean;
}

type Step = 'version' | 'security' | 'client_init' | 'playing' | 'done';

export class DesktopReplayChannel {
  binaryType = 'arraybuffer';
  readonly protocol = '';
  readyState: number = states.connecting;
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: { data: ArrayBuffer }) => void) | null = null;
  onclose: ((event: { code: number; reason: string; wasClean: boolean }) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;

  private step: Step = 'version';
  private received = 0;
  private next = 0;
  private timer: number | null = null;
  private playStartedAt = 0;
  private readonly durationMs: number;

  constructor(
    private readonly recording: DesktopRecording,
    private readonly options: {
      speed: number;
      clock: ReplayClock;
      now: () => number;
      onProgress?: (progress: ReplayProgress) => void;
    },
  ) {
    this.durationMs = recording.frames.at(-1)?.atMs ?? 0;
    // noVNC attaches its handlers right after construction; open on the next turn.
    options.clock.setTimeout(() => {
      if (this.readyState !== states.connecting) return;
      this.readyState = states.open;
      this.onopen?.(new Event('open'));
      this.deliver(replayHandshake().version);
    }, 0);
  }

  send(data: ArrayBuffer | Uint8Array): void {
    if (this.readyState !== states.open) return;
    this.received += data.byteLength;
    const handshake = replayHandshake();
    // The viewer's messages arrive whole but possibly together: count bytes, 12 + 1 + 1.
    if (this.step === 'version' && this.received >= 12) {
      this.step = 'security';
      this.deliver(handshake.securityTypes);
    }
    if (this.step === 'security' && this.received >= 13) {
      this.step = 'client_init';
      this.deliver(handshake.securityResult);
    }
    if (this.step === 'client_init' && this.received >= 14) {
      this.step = 'playing';
      this.playStartedAt = this.options.now();
      this.schedule();
    }
  }

  close(): void {
    if (this.readyState === states.closed) return;
    if (this.timer !== null) this.options.clock.clearTimeout(this.timer);
    this.timer = null;
    this.readyState = states.closed;
    this.onclose?.({ code: 1000, reason: 'replay closed', wasClean: true });
  }

  /** On a later turn, as a socket would: the viewer updates its state only after its send returned. */
  private deliver(bytes: Uint8Array): void {
    const copy = new Uint8Array(bytes.length);
    copy.set(bytes);
    this.options.clock.setTimeout(() => {
      if (this.readyState === states.open) this.onmessage?.({ data: copy.buffer });
    }, 0);
  }

  private schedule(): void {
    const frame = this.recording.frames[this.next];
    if (!frame) {
      this.step = 'done';
      this.options.onProgress?.({ atMs: this.durationMs, durationMs: this.durationMs, done: true });
      return;
    }
    const due = this.playStartedAt + frame.atMs / this.options.speed;
    const wait = Math.max(0, due - this.options.now());
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = null;
      if (this.readyState !== states.open) return;
      // Deliver every frame already due in one go, so a fast replay is not one timer per chunk.
      const now = this.options.now();
      for (;;) {
        const current = this.recording.frames[this.next];
        if (!current || this.playStartedAt + current.atMs / this.options.speed > now) break;
        this.onmessage?.({ data: current.bytes.slice().buffer });
        this.next += 1;
        this.options.onProgress?.({ atMs: current.atMs, durationMs: this.durationMs, done: false });
      }
      this.schedule();
    }, wait);
  }
}
