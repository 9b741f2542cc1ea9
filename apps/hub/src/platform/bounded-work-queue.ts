/**
 * A semaphore with a bounded waiting line: at most `running` tasks at once, at most `waiting` more in line,
 * and anything beyond that is turned away at once instead of queued. Work that an unauthenticated caller can
 * start (bcrypt on sign-in) must not build a line that delays everyone behind it.
 */
export class BoundedWorkQueue {
  private active = 0;
  private readonly line: (() => void)[] = [];

  constructor(
    private readonly running: number,
    private readonly waiting: number,
  ) {}

  /** Runs the task when a slot is free; null (and the task never starts) when running and waiting are full. */
  tryRun<T>(task: () => Promise<T>): Promise<T> | null {
    if (this.active < this.running) {
      this.active += 1;
      return this.finish(task);
    }
    if (this.line.length >= this.waiting) return null;
    return new Promise<void>((resolve) => this.line.push(resolve)).then(() => this.finish(task));
  }

  /** Tasks running and waiting. */
  get size(): number {
    return this.active + this.line.length;
  }

  private async finish<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } finally {
      // The slot passes straight to the next in line, so `active` never dips and lets a newcomer jump it.
      const next = this.line.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}
