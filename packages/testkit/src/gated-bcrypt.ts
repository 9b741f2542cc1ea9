/**
 * bcrypt whose compares wait while the test holds them, counted: with it a test fills the hub's bounded
 * bcrypt queue exactly, and sees what a caller meets while it is full, without timing anything.
 */
import { realBcrypt, type BcryptFunctions } from '@svc/hub';

export class GatedBcrypt {
  /** Compares started (held ones included). */
  compares = 0;
  private held = false;
  private waiters: (() => void)[] = [];

  readonly functions: BcryptFunctions = {
    hash: (password, cost) => realBcrypt.hash(password, cost),
    compare: async (password, hash) => {
      this.compares += 1;
      if (this.held) await new Promise<void>((resolve) => this.waiters.push(resolve));
      return realBcrypt.compare(password, hash);
    },
  };

  /** Compares from now on wait until release(). */
  hold(): void {
    this.held = true;
  }

  release(): void {
    this.held = false;
    for (const wake of this.waiters.splice(0)) wake();
  }
}
