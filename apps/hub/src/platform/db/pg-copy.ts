/**
 * `COPY … FROM STDIN` on one PostgreSQL connection, fed while it runs: the rows are sent as they are made, so
 * PostgreSQL stores the first while this process writes the next (an INSERT waits for its whole statement).
 * node-postgres has no COPY of its own; this is its documented extension point, a submittable query, speaking
 * the protocol's copy-in flow: Query, CopyInResponse, CopyData…, CopyDone (or CopyFail), CommandComplete,
 * ReadyForQuery. Text format: one line a row, columns separated by tabs (values through copyText).
 */
import type pg from 'pg';
import { isSocketFailure, markDatabaseUnreachable } from './unreachable.js';

/** What of node-postgres' connection a copy uses (its `Connection` type does not declare the copy messages). */
interface CopyConnection {
  readonly stream: NodeJS.WritableStream & { writableNeedDrain?: boolean };
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
  sendCopyFail(message: string): void;
}

export interface CopyIn {
  /** Sends rows (lines in text format); resolves once the socket takes more, so a fast writer waits for it. */
  write(lines: string): Promise<void>;
  /** Ends the data: resolves with the rows PostgreSQL stored, rejects with its error (the statement is void). */
  end(): Promise<number>;
  /** Abandons the copy: PostgreSQL discards every row of it and end() rejects. */
  fail(reason: string): void;
}

class CopyInQuery implements pg.Submittable {
  connection: CopyConnection | null = null;
  private rows = 0;
  private error: Error | null = null;
  readonly started: Promise<void>;
  readonly finished: Promise<number>;
  private resolveStarted!: () => void;
  private rejectStarted!: (error: Error) => void;
  private resolveFinished!: (rows: number) => void;
  private rejectFinished!: (error: Error) => void;

  constructor(private readonly text: string) {
    this.started = new Promise((resolve, reject) => {
      this.resolveStarted = resolve;
      this.rejectStarted = reject;
    });
    this.finished = new Promise((resolve, reject) => {
      this.resolveFinished = resolve;
      this.rejectFinished = reject;
    });
    // Either may be left unawaited when the other carries the error.
    this.started.catch(() => undefined);
    this.finished.catch(() => undefined);
  }

  submit(connection: pg.Connection): void {
    (connection as unknown as CopyConnection).query(this.text);
  }

  handleCopyInResponse(connection: CopyConnection): void {
    this.connection = connection;
    this.resolveStarted();
  }

  handleCommandComplete(message: { text?: string }): void {
    const counted = /^COPY (\d+)$/.exec(message.text ?? '');
    this.rows = counted ? Number(counted[1]) : 0;
  }

  handleError(error: Error): void {
    // A socket that broke under the copy is the database out of reach (platform/db/unreachable.ts).
    this.error = (isSocketFailure(error) ? markDatabaseUnreachable(error) : error) as Error;
    // node-postgres forgets the query on an error, so no ReadyForQuery reaches it: the copy ends here. Rows
    // still sent after it are dropped by PostgreSQL, as the protocol says.
    this.rejectStarted(this.error);
    this.rejectFinished(this.error);
  }

  get failed(): boolean {
    return this.error !== null;
  }

  handleReadyForQuery(): void {
    this.resolveFinished(this.rows);
  }

  // Messages a COPY FROM does not produce; node-postgres calls them on whatever query is active.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handlePortalSuspended(): void {}
  handleEmptyQuery(): void {}
  handleCopyData(): void {}
}

/** Starts `statement` (a `COPY … FROM STDIN`) on `client`, which must not be used for anything else until it ends. */
export async function copyIn(client: pg.ClientBase, statement: string): Promise<CopyIn> {
  const query = new CopyInQuery(statement);
  client.query(query);
  await query.started;
  const connection = query.connection as CopyConnection;
  let failed = false;
  return {
    async write(lines) {
      if (failed || query.failed || lines.length === 0) return;
      connection.sendCopyFromChunk(Buffer.from(lines, 'utf8'));
      if (connection.stream.writableNeedDrain) {
        // Or until the copy ends on an error (a socket that broke never drains).
        await Promise.race([
          new Promise<void>((resolve) => {
            connection.stream.once('drain', () => {
              resolve();
            });
          }),
          query.finished.then(
            () => undefined,
            () => undefined,
          ),
        ]);
      }
    },
    end() {
      if (!failed && !query.failed) connection.endCopyFrom();
      return query.finished;
    },
    fail(reason) {
      if (failed || query.failed) return;
      failed = true;
      connection.sendCopyFail(reason);
    },
  };
}

const special = /[\\\t\n\r]/;

/** A value in COPY's text format: `\N` for null, backslash, tab, newline and carriage return escaped. */
export function copyText(value: string | number | bigint | null): string {
  if (value === null) return '\\N';
  if (typeof value !== 'string') return String(value);
  if (!special.test(value)) return value;
  return value.replace(/[\\\t\n\r]/g, (c) =>
    c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r',
  );
}
