/**
 * A terminal session recorded as asciicast v2 (https://docs.asciinema.org/manual/asciicast/v2/): a header
 * line, then one `[seconds, "o", text]` line per output chunk and `[seconds, "r", "COLSxROWS"]` per resize.
 * Keystrokes are not recorded (`"i"`): what a person types at a hidden password prompt would be stored,
 * and the echo in the output already shows what a reader needs. Lines are buffered and written as one
 * chunk row about every second (a crash loses at most that); past the size cap recording stops and the
 * recording is marked truncated.
 */
import { StringDecoder } from 'node:string_decoder';

export interface RecorderSink {
  /** Stores the next chunk of lines (seq 0 is the header); the recorder calls it in order, one at a time. */
  append(seq: number, data: string, sizeBytes: number, truncated: boolean): Promise<void>;
}

export class AsciicastRecorder {
  private readonly decoder = new StringDecoder('utf8');
  private lines: string[] = [];
  private size = 0;
  private seq = 0;
  private truncated = false;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sink: RecorderSink,
    private readonly startedAt: number,
    private readonly maxBytes: number,
    header: { cols: number; rows: number },
    private readonly onError: (error: unknown) => void,
  ) {
    this.push(
      JSON.stringify({
        version: 2,
        width: header.cols,
        height: header.rows,
        timestamp: Math.floor(startedAt / 1000),
        env: { TERM: 'xterm-256color' },
      }),
    );
  }

  get isTruncated(): boolean {
    return this.truncated;
  }

  get bytes(): number {
    return this.size;
  }

  output(chunk: Buffer, now: number): void {
    const text = this.decoder.write(chunk);
    if (text) this.event(now, 'o', text);
  }

  resize(cols: number, rows: number, now: number): void {
    this.event(now, 'r', `${cols}x${rows}`);
  }

  /** Writes what is buffered as one chunk; resolves once it and every earlier one are stored. */
  flush(): Promise<void> {
    if (this.lines.length === 0) return this.writing;
    const data = `${this.lines.join('\n')}\n`;
    this.lines = [];
    const seq = this.seq;
    this.seq += 1;
    const size = this.size;
    const truncated = this.truncated;
    this.writing = this.writing
      .then(() => this.sink.append(seq, data, size, truncated))
      .catch((error: unknown) => {
        this.onError(error);
      });
    return this.writing;
  }

  private event(now: number, code: 'o' | 'r', text: string): void {
    if (this.truncated) return;
    const seconds = Math.max(0, (now - this.startedAt) / 1000);
    this.push(JSON.stringify([Number(seconds.toFixed(6)), code, text]));
  }

  private push(line: string): void {
    const bytes = Buffer.byteLength(line) + 1;
    if (this.size + bytes > this.maxBytes) {
      this.truncated = true;
      return;
    }
    this.size += bytes;
    this.lines.push(line);
  }
}
