/**
 * Every bcrypt the hub runs after start-up goes through one bounded queue (ARCHITECTURE §6.11): bcrypt runs on
 * libuv's small thread pool, so a flood of junk sign-ins would otherwise line up checks that delay the
 * owner's own sign-in by seconds (and file and DNS work with it). Beyond the bound the caller is refused
 * at once with 429 rate_limited and Retry-After, which costs nothing.
 */
import { BoundedWorkQueue } from './bounded-work-queue.js';
import { hashPassword, randomToken, verifyPassword } from './crypto.js';
import { HubError } from './hub-error.js';

/**
 * Two cores: two checks at a time, eight more waiting (at cost 12, about a second of waiting at most), and two
 * places kept for sign-ins from addresses that signed in before (see BoundedWorkQueue).
 */
export const passwordQueueLimits = { running: 2, waiting: 8, reserved: 2 } as const;

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Hashes several secrets in one turn of the queue (recovery codes). */
  hashAll(secrets: readonly string[]): Promise<string[]>;
  /** `priority`: the caller may take a reserved place when the ordinary ones are full (and goes first). */
  verify(password: string, hash: string, options?: { priority?: boolean }): Promise<boolean>;
  /** The index of the first hash the secret matches, or -1; all checks in one turn of the queue. */
  verifyAny(secret: string, hashes: readonly string[]): Promise<number>;
  /**
   * A hash of nothing anyone knows, at the same cost as real ones: checking an unknown user against it takes
   * as long as a real check (made once, outside the queue, so it never fails on a full queue).
   */
  decoyHash(): Promise<string>;
  /** Checks running and waiting (for tests and diagnostics). */
  readonly inQueue: number;
}

/** The bcrypt calls themselves; tests pass their own to hold checks in the queue as long as they need. */
export interface BcryptFunctions {
  hash(password: string, cost: number): Promise<string>;
  compare(password: string, hash: string): Promise<boolean>;
}

export const realBcrypt: BcryptFunctions = { hash: hashPassword, compare: verifyPassword };

export function createPasswordHasher(options: {
  cost: number;
  running?: number;
  waiting?: number;
  reserved?: number;
  bcrypt?: BcryptFunctions;
}): PasswordHasher {
  const bcrypt = options.bcrypt ?? realBcrypt;
  const queue = new BoundedWorkQueue(
    options.running ?? passwordQueueLimits.running,
    options.waiting ?? passwordQueueLimits.waiting,
    options.reserved ?? passwordQueueLimits.reserved,
  );
  let decoy: Promise<string> | null = null;

  function run<T>(task: () => Promise<T>, priority = false): Promise<T> {
    const started = queue.tryRun(task, priority);
    if (started) return started;
    return Promise.reject(
      new HubError('rate_limited', 'The hub is busy checking passwords; try again in a moment.', {
        headers: { 'Retry-After': '1' },
      }),
    );
  }

  return {
    hash: (password) => run(() => bcrypt.hash(password, options.cost)),
    hashAll: (secrets) =>
      run(async () => {
        const hashes: string[] = [];
        for (const secret of secrets) hashes.push(await bcrypt.hash(secret, options.cost));
        return hashes;
      }),
    verify: (password, hash, verifyOptions) =>
      run(() => bcrypt.compare(password, hash), verifyOptions?.priority ?? false),
    verifyAny: (secret, hashes) =>
      run(async () => {
        for (const [index, hash] of hashes.entries()) if (await bcrypt.compare(secret, hash)) return index;
        return -1;
      }),
    decoyHash: () => (decoy ??= bcrypt.hash(randomToken(16), options.cost)),
    get inQueue() {
      return queue.size;
    },
  };
}
