/**
 * The NDJSON form of a fan-out: one line per result as it arrives, then a summary line. Lines are written
 * only while the response has room (a slow reader is waited for, never buffered past the result budget),
 * and a client that goes away is audited while the commands it started run to their end.
 */
import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ExecStreamSummary } from '@svc/protocol';
import type { FanOut } from './exec.service.js';

const ndjsonType = 'application/x-ndjson';

/** True when the Accept header asks for NDJSON (any position, q above 0). */
export function acceptsNdjson(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type !== ndjsonType) return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** Writes lines in order; a line's budget bytes go back once the stream has taken it on toward the socket. */
class LineWriter {
  private readonly queue: { line: string; bytes: number; isResult: boolean }[] = [];
  private waiting = false;
  private gone = false;
  private ending = false;
  private written = 0;

  constructor(
    private readonly out: PassThrough,
    private readonly release: (bytes: number) => void,
  ) {
    out.on('drain', () => {
      this.waiting = false;
      this.flush();
    });
  }

  /** Result lines handed to the response (the client may not have read the last few). */
  get delivered(): number {
    return this.written;
  }

  push(line: string, bytes: number): void {
    if (this.gone) {
      this.release(bytes);
      return;
    }
    this.queue.push({ line, bytes, isResult: true });
    this.flush();
  }

  /** Writes `line` after everything queued, then ends the response. */
  finish(line: string): void {
    this.queue.push({ line, bytes: 0, isResult: false });
    this.ending = true;
    this.flush();
  }

  /** The client went away: nothing more is written, and nothing queued is held. */
  drop(): void {
    this.gone = true;
    for (const item of this.queue.splice(0)) this.release(item.bytes);
  }

  private flush(): void {
    while (!this.waiting && !this.gone) {
      const item = this.queue.shift();
      if (!item) break;
      if (item.isResult) this.written += 1;
      this.waiting = !this.out.write(item.line, () => {
        this.release(item.bytes);
      });
    }
    if (this.ending && !this.gone && this.queue.length === 0) this.out.end();
  }
}

/**
 * Answers 200 NDJSON for a fan-out that passed every check. The summary line is written last; a stream
 * without it broke off (a bug after the 200 ends the stream early rather than sending a second status).
 */
export async function streamFanOut(
  request: FastifyRequest,
  reply: FastifyReply,
  fanOut: FanOut,
): Promise<void> {
  const out = new PassThrough();
  const writer = new LineWriter(out, (bytes) => {
    fanOut.budget.release(bytes);
  });
  const gone: { audit: Promise<void> | null } = { audit: null };
  let finished = false;
  reply.raw.once('finish', () => {
    finished = true;
  });
  reply.raw.once('close', () => {
    if (finished || reply.raw.writableFinished) return;
    writer.drop();
    gone.audit = fanOut.recordClientGone(writer.delivered).catch((error: unknown) => {
      request.log.error({ err: error }, 'auditing an abandoned exec stream failed');
    });
  });
  void reply.code(200).type(ndjsonType).send(out);
  try {
    const summary = await fanOut.run((result, bytes) => {
      writer.push(`${JSON.stringify(result)}\n`, bytes);
    });
    const last: ExecStreamSummary = { summary, request_id: request.id };
    writer.finish(`${JSON.stringify(last)}\n`);
  } catch (error) {
    request.log.error({ err: error }, 'an exec stream failed after its 200');
    out.destroy();
  }
  await gone.audit;
}
