/**
 * The byte budget of one fan-out's results. Each agent's streams are already capped at 1 MiB, but a fleet of
 * them is not: 300 targets × 2 MiB once made a body V8 could not build (500 after every command had run).
 * The budget counts stdout + stderr as they are written in JSON (a NUL byte is six), so output of control
 * bytes cannot make the answer six times the budget. A JSON body holds everything to the end; an NDJSON
 * stream gives bytes back once their line has left, so there it bounds what waits for a slow reader.
 */
import { execLimits, type ExecResult } from '@svc/protocol';

/** Caps a stream at `max` UTF-8 bytes without splitting a character. */
export function capStream(
  text: string,
  max: number = execLimits.streamBytes,
): { text: string; cut: boolean } {
  // A string of n UTF-16 units is at most 3n UTF-8 bytes: short output needs no encoding at all.
  if (text.length * 3 <= max) return { text, cut: false };
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return { text, cut: false };
  let end = max;
  // Back off continuation bytes (10xxxxxx) so the cut falls on a character boundary.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return { text: bytes.subarray(0, end).toString('utf8'), cut: true };
}

/**
 * The longest prefix of `text` whose JSON-escaped form (as JSON.stringify writes it, in UTF-8) fits in `room`
 * bytes, and what that costs. Never splits a surrogate pair.
 */
export function fitJson(text: string, room: number): { text: string; cost: number; cut: boolean } {
  let cost = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    let width = 3;
    let units = 1;
    if (c < 0x20) width = c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6;
    else if (c === 0x22 || c === 0x5c) width = 2;
    else if (c < 0x80) width = 1;
    else if (c < 0x800) width = 2;
    else if (c >= 0xd800 && c <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      const paired = c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
      // A pair is one 4-byte character; a lone surrogate is written as \udxxx.
      width = paired ? 4 : 6;
      units = paired ? 2 : 1;
    }
    if (cost + width > room) return { text: text.slice(0, i), cost, cut: true };
    cost += width;
    i += units;
  }
  return { text, cost, cut: false };
}

export interface AdmittedResult {
  result: ExecResult;
  /** What the result holds of the budget: give it back with `release` once it is no longer held. */
  bytes: number;
}

export class ResultBudget {
  private held = 0;
  private highest = 0;

  constructor(readonly limit: number) {}

  /** The most bytes held at once so far. */
  get peak(): number {
    return this.highest;
  }

  /** Takes the result whole when it fits; otherwise cuts its streams to what is left and marks it truncated. */
  admit(result: ExecResult): AdmittedResult {
    const room = Math.max(0, this.limit - this.held);
    const stdout = fitJson(result.stdout, room);
    const stderr = fitJson(result.stderr, room - stdout.cost);
    const bytes = this.take(stdout.cost + stderr.cost);
    if (!stdout.cut && !stderr.cut) return { result, bytes };
    return { result: { ...result, stdout: stdout.text, stderr: stderr.text, truncated: true }, bytes };
  }

  release(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
  }

  private take(bytes: number): number {
    this.held += bytes;
    this.highest = Math.max(this.highest, this.held);
    return bytes;
  }
}
