/**
 * The byte budget of one fan-out's results. Each agent's streams are already capped at 1 MiB, but a fleet of
 * them is not: 300 targets × 2 MiB once made a body V8 could not build (500 after every command had run).
 * The budget counts stdout + stderr bytes the hub holds; a JSON body holds everything to the end, an NDJSON
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
    const whole = Buffer.byteLength(result.stdout, 'utf8') + Buffer.byteLength(result.stderr, 'utf8');
    if (whole <= room) return { result, bytes: this.take(whole) };
    const stdout = capStream(result.stdout, room);
    const stdoutBytes = Buffer.byteLength(stdout.text, 'utf8');
    const stderr = capStream(result.stderr, room - stdoutBytes);
    const bytes = stdoutBytes + Buffer.byteLength(stderr.text, 'utf8');
    return {
      result: { ...result, stdout: stdout.text, stderr: stderr.text, truncated: true },
      bytes: this.take(bytes),
    };
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
