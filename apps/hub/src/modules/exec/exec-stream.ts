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
  private readonly queue: { line: string; bytes: number; results: number }[] = [];
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

  /** Queues `line`, which holds `results` results (0 for the JSON body's opening, several for a batch). */
  push(line: string, bytes: number, results = 1): void {
    if (this.gone) {
      this.release(bytes);
      return;
    }
    this.queue.push({ line, bytes, results });
    this.flush();
  }

  /** Writes `line` after everything queued, then ends the response. */
  finish(line: string): void {
    this.queue.push({ line, bytes: 0, results: 0 });
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
      this.written += item.results;
      this.waiting = !this.out.write(item.line, () => {
        this.release(item.bytes);
      });
    }
    if (this.ending && !this.gone && this.queue.length === 0) this.out.end();
  }
}

/**
 * Sends a fan-out's answer as it is produced: 200 with `type` at once, then what `produce` writes; a client
 * that goes away is audited while the commands it started run to their end. A bug after the 200 ends the
 * body early (the NDJSON summary line or the JSON's closing brackets are missing) rather than sending a
 * second status.
 */
async function answerAsItComes(
  request: FastifyRequest,
  reply: FastifyReply,
  fanOut: FanOut,
  type: string,
  produce: (writer: LineWriter) => Promise<void>,
  /** False when the budget bounds the whole body (JSON): written results keep their bytes counted. */
  releaseWritten = true,
): Promise<void> {
  const out = new PassThrough();
  const writer = new LineWriter(out, (bytes) => {
    if (releaseWritten) fanOut.budget.release(bytes);
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
  void reply.code(200).type(type).send(out);
  try {
    await produce(writer);
  } catch (error) {
    request.log.error({ err: error }, 'an exec stream failed after its 200');
    out.destroy();
  }
  await gone.audit;
}

/** Answers 200 NDJSON for a fan-out that passed every check: a line per result as it arrives, then the summary. */
export async function streamFanOut(
  request: FastifyRequest,
  reply: FastifyReply,
  fanOut: FanOut,
): Promise<void> {
  await answerAsItComes(request, reply, fanOut, ndjsonType, async (writer) => {
    const summary = await fanOut.run((result, bytes) => {
      writer.push(`${JSON.stringify(result)}\n`, bytes);
    });
    const last: ExecStreamSummary = { summary, request_id: request.id };
    writer.finish(`${JSON.stringify(last)}\n`);
  });
}

/**
 * Answers 200 with the one JSON body `{request_id, data: {results, summary}}` (results in the order of the
 * targets), written as the results come in: each result is serialised when it arrives and written once every
 * result before it is, so ten thousand results never make one long serialisation at the end (decision 0057).
 * The budget bounds the whole body, as when it was written at the end: written results stay counted.
 */
export async function sendFanOutJson(
  request: FastifyRequest,
  reply: FastifyReply,
  fanOut: FanOut,
): Promise<void> {
  await answerAsItComes(
    request,
    reply,
    fanOut,
    'application/json; charset=utf-8',
    async (writer) => {
      writer.push(`{"request_id":${JSON.stringify(request.id)},"data":{"results":[`, 0, 0);
      const waiting = new Map<number, { text: string; bytes: number }>();
      let next = 0;
      // Results ready in order are written together, once per turn of the event loop (or every 64 KiB),
      // rather than one write to the response per target.
      let batch = '';
      let batchBytes = 0;
      let batchResults = 0;
      let scheduled = false;
      const flush = () => {
        scheduled = false;
        if (batchResults === 0) return;
        writer.push(batch, batchBytes, batchResults);
        batch = '';
        batchBytes = 0;
        batchResults = 0;
      };
      const summary = await fanOut.run((result, bytes, index) => {
        waiting.set(index, { text: JSON.stringify(result), bytes });
        for (let ready = waiting.get(next); ready; ready = waiting.get(next)) {
          waiting.delete(next);
          batch += next === 0 ? ready.text : `,${ready.text}`;
          batchBytes += ready.bytes;
          batchResults += 1;
          next += 1;
        }
        if (batch.length >= 65_536) flush();
        else if (batchResults > 0 && !scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
      flush();
      writer.finish(`],"summary":${JSON.stringify(summary)}}}`);
    },
    false,
  );
}
