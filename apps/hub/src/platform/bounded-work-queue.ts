/**
 * A semaphore with a bounded waiting line: at most `running` tasks at once, at most `waiting` more in line,
 * and anything beyond that is turned away at once instead of queued. Work that an unauthenticated caller can
 * start (bcrypt on sign-in) must not build a line that delays everyone behind it.
 * `reserved` places more are kept for priority callers (sign-ins from addresses that signed in before), who
 * also go first: a flood that fills the ordinary line cannot keep them out.
 */
export class BoundedWorkQueue {
  private active = 0;
  private readonly line: (() => void)[] = [];
  private readonly priorityLine: (() => void)[] = [];

  constructor(
    private readonly running: number,
    private readonly waiting: number,
    private readonly reserved = 0,
  ) {}

  /** Runs the task when a slot is free; null (and the task never starts) when running and waiting are full. */
  tryRun<T>(task: () => Promise<T>, priority = false): Promise<T> | null {
    if (this.active < this.running) {
      this.active += 1;
      return this.finish(task);
    }
    const line =
      priority && this.priorityLine.length < this.reserved
        ? this.priorityLine
        : this.line.length < this.waiting
          ? this.line
          : null;
    if (!line) return null;
    return new Promise<void>((resolve) => line.push(resolve)).then(() => this.finish(task));
  }

  /** Tasks running and waiting. */
  get size(): number {
    return this.active + this.line.length + this.priorityLine.length;
  }

  private async finish<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } finally {
      // The slot passes straight to the next in line, so `active` never dips and lets a newcomer jump it.
      const next = this.priorityLine.shift() ?? this.line.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}
