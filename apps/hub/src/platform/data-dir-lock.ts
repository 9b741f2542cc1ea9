/**
 * One hub per data directory. A second hub on the same directory would mark the first one's agents offline,
 * race its migrations and renew its certificates, so a hub takes this lock before it touches anything there.
 *
 * The lock is a file, created atomically, holding the owner's pid. Node has no flock(), so a lock left by a hub
 * that died (kill -9, power loss) is recognised by its pid no longer running, and taken over.
 */
import fs from 'node:fs';
import path from 'node:path';

export const lockFileName = 'hub.lock';

export class DataDirLocked extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `another svc hub (pid ${pid}) is using the data directory ${dataDir}; stop it first, or give this one ` +
        'its own SVC_DATA_DIR',
    );
  }
}

export interface DataDirLock {
  release(): void;
}

/** Locks held by this process: a second hub in the same process is refused too. */
const heldHere = new Set<string>();

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(file: string): number | null {
  try {
    const pid = Number.parseInt(fs.readFileSync(file, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

export function lockDataDir(dataDir: string): DataDirLock {
  const dir = path.resolve(dataDir);
  const file = path.join(dir, lockFileName);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 3; attempt++) {
    // Written aside, then linked into place: the lock appears with its pid in it, or not at all.
    const temp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, `${process.pid}\n`, { mode: 0o600 });
    try {
      fs.linkSync(temp, file);
      heldHere.add(file);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          heldHere.delete(file);
          if (readPid(file) === process.pid) fs.rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      fs.rmSync(temp, { force: true });
    }
    const pid = readPid(file);
    if (pid !== null && (heldHere.has(file) || (pid !== process.pid && isRunning(pid)))) {
      throw new DataDirLocked(dir, pid);
    }
    // Left by a hub that is gone: take it over.
    fs.rmSync(file, { force: true });
  }
  throw new Error(`could not lock the data directory ${dir}`);
}
