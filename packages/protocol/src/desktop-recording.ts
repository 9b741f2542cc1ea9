/**
 * Desktop recordings (decision 0030): the server → client RFB bytes of a desktop session after its
 * authentication, with the time each chunk arrived, in a small binary file. Pure and browser-safe (Uint8Array,
 * DataView): the hub records with `DesktopRecorder`, the console parses with `parseDesktopRecording` and
 * replays to noVNC after `replayHandshake`.
 *
 * File layout, all integers big-endian:
 *   magic     8 bytes  "SVCRFB01"
 *   header    u32 length, then that many bytes of UTF-8 JSON: {"version":1,"started_at":"<RFC 3339>"}
 *   frames    repeated: u8 kind (0 data, 1 end), u32 milliseconds since started_at, u32 length, bytes
 * An `end` frame (length 0) closes a recording that stopped at its size bound; a recording without one ended
 * with its session. The first data bytes are the server's ServerInit.
 */

export const desktopRecordingMagic = 'SVCRFB01';
/** The default bound on one recording's file (the hub's setting may lower it). */
export const desktopRecordingMaxBytes = 64 * 1024 * 1024;
/** A data frame's payload is at most this; bigger chunks are split. */
const maxFramePayload = 1024 * 1024;
/** The handshake before authentication is small; a server that sends more is not recorded. */
const maxHandshakeBytes = 64 * 1024;
const frameHeaderBytes = 9;

const frameKinds = { data: 0, end: 1 } as const;

export interface DesktopRecordingHeader {
  version: 1;
  started_at: string;
}

export interface DesktopRecordingFrame {
  /** Milliseconds since the recording started. */
  atMs: number;
  bytes: Uint8Array;
}

export interface DesktopRecording {
  header: DesktopRecordingHeader;
  frames: DesktopRecordingFrame[];
  /** Stopped at its size bound rather than at the session's end. */
  truncated: boolean;
}

export type ParseResult<T> = { ok: true; value: T } | { ok: false; message: string };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function frameBytes(kind: number, atMs: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(frameHeaderBytes + payload.length);
  const view = new DataView(out.buffer);
  view.setUint8(0, kind);
  view.setUint32(1, Math.min(Math.max(0, Math.floor(atMs)), 0xffffffff));
  view.setUint32(5, payload.length);
  out.set(payload, frameHeaderBytes);
  return out;
}

/** The magic and header that open a recording. */
export function desktopRecordingPreamble(header: DesktopRecordingHeader): Uint8Array {
  const json = encoder.encode(JSON.stringify(header));
  const out = new Uint8Array(8 + 4 + json.length);
  out.set(encoder.encode(desktopRecordingMagic), 0);
  new DataView(out.buffer).setUint32(8, json.length);
  out.set(json, 12);
  return out;
}

export function parseDesktopRecording(file: Uint8Array): ParseResult<DesktopRecording> {
  if (file.length < 12 || decoder.decode(file.subarray(0, 8)) !== desktopRecordingMagic)
    return { ok: false, message: 'not a desktop recording (bad magic)' };
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const headerLength = view.getUint32(8);
  if (12 + headerLength > file.length) return { ok: false, message: 'the header runs past the end' };
  let header: unknown;
  try {
    header = JSON.parse(decoder.decode(file.subarray(12, 12 + headerLength)));
  } catch {
    return { ok: false, message: 'the header is not JSON' };
  }
  const fields = header as Partial<DesktopRecordingHeader> | null;
  if (typeof fields !== 'object' || fields?.version !== 1 || typeof fields.started_at !== 'string')
    return { ok: false, message: 'unknown recording version' };
  const frames: DesktopRecordingFrame[] = [];
  let truncated = false;
  let at = 12 + headerLength;
  while (at < file.length) {
    if (at + frameHeaderBytes > file.length) return { ok: false, message: `a frame header is cut at ${at}` };
    const kind = view.getUint8(at);
    const atMs = view.getUint32(at + 1);
    const length = view.getUint32(at + 5);
    if (at + frameHeaderBytes + length > file.length)
      return { ok: false, message: `a frame runs past the end at ${at}` };
    if (kind === frameKinds.end) {
      truncated = true;
      break;
    }
    if (kind !== frameKinds.data) return { ok: false, message: `unknown frame kind ${kind} at ${at}` };
    frames.push({ atMs, bytes: file.subarray(at + frameHeaderBytes, at + frameHeaderBytes + length) });
    at += frameHeaderBytes + length;
  }
  return { ok: true, value: { header: { version: 1, started_at: fields.started_at }, frames, truncated } };
}

/**
 * What a replaying server says before the recorded ServerInit: version 3.8, the one security type None, and
 * SecurityResult OK. The viewer asks for no password: a recording holds no credential to check.
 */
export function replayHandshake(): {
  version: Uint8Array;
  securityTypes: Uint8Array;
  securityResult: Uint8Array;
} {
  return {
    version: encoder.encode('RFB 003.008\n'),
    securityTypes: Uint8Array.of(1, 1),
    securityResult: Uint8Array.of(0, 0, 0, 0),
  };
}

type RecorderState =
  | 'server_version'
  | 'security_types'
  | 'security_type_33'
  | 'client_choice'
  | 'challenge'
  | 'security_result'
  | 'recording'
  | 'stopped';

export interface DesktopRecorderOptions {
  startedAt: Date;
  /** Milliseconds now, monotonic (the recorder subtracts its start). */
  now: () => number;
  /** Bound on the whole file, preamble included. */
  maxBytes?: number;
  /** Receives each piece of the file in order. */
  write: (bytes: Uint8Array) => void;
}

/**
 * Follows both directions of a desktop connection through the RFB handshake (versions 3.3 to 3.8, security
 * None or VncAuth), then writes every server → client byte. Client → server bytes are never written: they are
 * only read for the version and the chosen security type, because after that they hold keystrokes (passwords
 * typed on the remote desktop) and a replay does not need them. Other security types (TLS, VeNCrypt, RA2)
 * encrypt what follows: the recorder stops and says why.
 */
export class DesktopRecorder {
  private state: RecorderState = 'server_version';
  private stopReason: string | null = null;
  private server: Uint8Array = new Uint8Array(0);
  private client: Uint8Array = new Uint8Array(0);
  private clientMinor: number | null = null;
  private chosen: number | null = null;
  private written = 0;
  private readonly started: number;
  private readonly maxBytes: number;

  constructor(private readonly options: DesktopRecorderOptions) {
    this.started = options.now();
    this.maxBytes = options.maxBytes ?? desktopRecordingMaxBytes;
  }

  /** Why nothing more is recorded (handshake failed, unsupported security, size bound), or null. */
  get stoppedBecause(): string | null {
    return this.stopReason;
  }

  get isRecording(): boolean {
    return this.state === 'recording';
  }

  fromClient(bytes: Uint8Array): void {
    if (this.state === 'recording' || this.state === 'stopped') return;
    if (this.clientMinor !== null && this.chosen !== null) return;
    this.client = concat(this.client, bytes);
    if (this.client.length > maxHandshakeBytes) {
      this.stop('the handshake is too long to follow');
      return;
    }
    if (this.clientMinor === null && this.client.length >= 12) {
      const match = /^RFB 003\.(\d{3})\n$/.exec(decoder.decode(this.client.subarray(0, 12)));
      if (!match) {
        this.stop('the client did not speak RFB 3.x');
        return;
      }
      this.clientMinor = Number(match[1]);
    }
    if (
      this.clientMinor !== null &&
      this.clientMinor >= 7 &&
      this.chosen === null &&
      this.client.length >= 13
    )
      this.chosen = this.client[12] ?? null;
    this.advance();
  }

  fromServer(bytes: Uint8Array): void {
    if (this.state === 'stopped') return;
    if (this.state === 'recording') {
      this.record(bytes);
      return;
    }
    this.server = concat(this.server, bytes);
    if (this.server.length > maxHandshakeBytes) {
      this.stop('the handshake is too long to follow');
      return;
    }
    this.advance();
  }

  private advance(): void {
    for (;;) {
      const before = this.state;
      this.step();
      if (this.state === before || this.state === 'stopped') return;
      if (this.state === 'recording') {
        const rest = this.server;
        this.server = new Uint8Array(0);
        this.client = new Uint8Array(0);
        const preamble = desktopRecordingPreamble({
          version: 1,
          started_at: this.options.startedAt.toISOString(),
        });
        this.options.write(preamble);
        this.written = preamble.length;
        if (rest.length > 0) this.record(rest);
        return;
      }
    }
  }

  private take(length: number): Uint8Array | null {
    if (this.server.length < length) return null;
    const head = this.server.subarray(0, length);
    this.server = this.server.subarray(length);
    return head;
  }

  private step(): void {
    switch (this.state) {
      case 'server_version': {
        const version = this.take(12);
        if (!version) return;
        if (!/^RFB 003\.\d{3}\n$/.test(decoder.decode(version))) {
          this.stop('the server did not speak RFB 3.x');
          return;
        }
        this.state = 'client_choice';
        return;
      }
      case 'client_choice':
        // The server's next bytes depend on the version the client answered with.
        if (this.clientMinor === null) return;
        this.state = this.clientMinor >= 7 ? 'security_types' : 'security_type_33';
        return;
      case 'security_types': {
        if (this.server.length < 1) return;
        const count = this.server[0] ?? 0;
        if (count === 0) {
          this.stop('the server refused the connection');
          return;
        }
        // take() consumes only when the whole list is there.
        if (this.take(1 + count) === null) return;
        this.state = 'challenge';
        return;
      }
      case 'security_type_33': {
        const type = this.take(4);
        if (!type) return;
        this.chosen = new DataView(type.buffer, type.byteOffset, 4).getUint32(0);
        if (this.chosen === 0) {
          this.stop('the server refused the connection');
          return;
        }
        this.state = 'challenge';
        return;
      }
      case 'challenge':
        if (this.chosen === null) return;
        if (this.chosen === 2) {
          if (this.take(16) === null) return;
          this.state = 'security_result';
        } else if (this.chosen === 1) {
          // RFB 3.8 sends a SecurityResult for None too; 3.3 and 3.7 go straight to ServerInit.
          this.state = (this.clientMinor ?? 0) >= 8 ? 'security_result' : 'recording';
        } else {
          this.stop(`security type ${this.chosen} encrypts the session; not recorded`);
        }
        return;
      case 'security_result': {
        const result = this.take(4);
        if (!result) return;
        if (new DataView(result.buffer, result.byteOffset, 4).getUint32(0) !== 0) {
          this.stop('authentication failed');
          return;
        }
        this.state = 'recording';
        return;
      }
      case 'recording':
      case 'stopped':
        return;
    }
  }

  private record(bytes: Uint8Array): void {
    const atMs = this.options.now() - this.started;
    for (let offset = 0; offset < bytes.length; offset += maxFramePayload) {
      const payload = bytes.subarray(offset, offset + maxFramePayload);
      if (this.written + frameHeaderBytes * 2 + payload.length > this.maxBytes) {
        this.options.write(frameBytes(frameKinds.end, atMs, new Uint8Array(0)));
        this.written += frameHeaderBytes;
        this.stop(`the recording reached its bound of ${this.maxBytes} bytes`);
        return;
      }
      const frame = frameBytes(frameKinds.data, atMs, payload);
      this.options.write(frame);
      this.written += frame.length;
    }
  }

  private stop(reason: string): void {
    this.state = 'stopped';
    this.stopReason = reason;
    this.server = new Uint8Array(0);
    this.client = new Uint8Array(0);
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b.slice();
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
