/**
 * Container log bytes into lines. Without a TTY the engine frames each write as
 * `[stream (1 stdout, 2 stderr), 0, 0, 0, uint32 BE length] + payload`; with one, the log is the raw terminal
 * bytes (`\r\n` line ends). Which one applies comes from the container's `Config.Tty`, never from the
 * Content-Type (podman 4.3, podman 5 and Docker ≥ 1.42 each say something different).
 */
import { StringDecoder } from 'node:string_decoder';
import { containerLimits, type ContainerLogEntry } from '@svc/protocol';

type Stream = ContainerLogEntry['stream'];

export interface LogLines {
  entries: ContainerLogEntry[];
  truncated: boolean;
}

const headerBytes = 8;

/** Splits a framed body; a frame cut at the end of the read (a partial header or payload) is kept as far as it goes. */
export function demultiplex(body: Buffer): { stream: Stream; data: Buffer }[] {
  const frames: { stream: Stream; data: Buffer }[] = [];
  let at = 0;
  while (at + headerBytes <= body.length) {
    const kind = body[at];
    const length = body.readUInt32BE(at + 4);
    const start = at + headerBytes;
    const end = Math.min(body.length, start + length);
    // stdin (0) never appears in logs; anything else is not a frame header: stop rather than misread.
    if (kind !== 1 && kind !== 2) break;
    frames.push({ stream: kind === 1 ? 'stdout' : 'stderr', data: body.subarray(start, end) });
    at = start + length;
  }
  return frames;
}

/** Lines of each stream in the order they were written; a write split over frames joins its line again. */
function toLines(frames: { stream: Stream; data: Buffer }[]): ContainerLogEntry[] {
  const entries: ContainerLogEntry[] = [];
  const pending = new Map<Stream, { decoder: StringDecoder; text: string }>();
  const stateOf = (stream: Stream) => {
    let state = pending.get(stream);
    if (!state) {
      state = { decoder: new StringDecoder('utf8'), text: '' };
      pending.set(stream, state);
    }
    return state;
  };
  for (const frame of frames) {
    const state = stateOf(frame.stream);
    state.text += state.decoder.write(frame.data);
    let newline = state.text.indexOf('\n');
    while (newline !== -1) {
      entries.push({ stream: frame.stream, text: state.text.slice(0, newline).replace(/\r$/, '') });
      state.text = state.text.slice(newline + 1);
      newline = state.text.indexOf('\n');
    }
  }
  for (const [stream, state] of pending) {
    const rest = state.text + state.decoder.end();
    if (rest) entries.push({ stream, text: rest.replace(/\r$/, '') });
  }
  return entries;
}

/**
 * The newest lines within the caps (lines and bytes): a log is read from its end, so what goes is the oldest.
 * `cut` says the read itself stopped early.
 */
export function logLines(body: Buffer, tty: boolean, cut: boolean): LogLines {
  const frames = tty ? [{ stream: 'tty' as const, data: body }] : demultiplex(body);
  const all = toLines(frames);
  let truncated = cut;
  let budget = containerLimits.logBytes;
  const kept: ContainerLogEntry[] = [];
  for (let i = all.length - 1; i >= 0; i--) {
    const entry = all[i];
    if (!entry) continue;
    const size = Buffer.byteLength(entry.text);
    if (kept.length >= containerLimits.logTailLines || size > budget) {
      truncated = true;
      break;
    }
    budget -= size;
    kept.push(entry);
  }
  return { entries: kept.reverse(), truncated };
}
