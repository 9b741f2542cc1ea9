/**
 * The process groups of the commands exec.run started and that still run: the agent's stop ends them. Apart
 * from exec.ts so that the agent holds the registry from its start without loading exec itself (lazy.ts).
 */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/**
 * The process groups of the commands running now. Stopping the agent ends them (SIGTERM, then SIGKILL after a
 * grace), as systemd ends what is left of a unit: otherwise a long command keeps the stopped agent's process
 * alive until it finishes.
 */
export class RunningCommands {
  private readonly groups = new Set<number>();

  add(pid: number): void {
    this.groups.add(pid);
  }

  delete(pid: number): void {
    this.groups.delete(pid);
  }

  get size(): number {
    return this.groups.size;
  }

  async stopAll(graceMs = 2_000): Promise<void> {
    for (const pid of this.groups) killGroup(pid, 'SIGTERM');
    const deadline = performance.now() + graceMs;
    while (this.groups.size > 0 && performance.now() < deadline) await sleep(20);
    for (const pid of this.groups) killGroup(pid, 'SIGKILL');
    const killed = performance.now() + 1_000;
    while (this.groups.size > 0 && performance.now() < killed) await sleep(20);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
