/**
 * Sign-in throttles (ARCHITECTURE §6.11, decision 0005): three token buckets, each refusing with 429
 * rate_limited and Retry-After before any bcrypt runs.
 * - per (username, address): every attempt, so one client cannot hammer one account;
 * - per address across usernames: failures only, so spraying many usernames from one place is slowed;
 * - per username across addresses: failures only, so a botnet guessing one account's password is slowed —
 *   at the price that, while it lasts, the account's password sign-in answers 429 for everyone, its owner
 *   included (who can still use an API key or OIDC).
 * - one check at a time per address: a flood from one place holds at most one of the bcrypt queue's slots,
 *   so everyone else still finds room (a second simultaneous sign-in from that address gets 429 at once).
 * Addresses a password sign-in succeeded from lately (the last 1,000) get a reserved place in the bcrypt
 * queue: a flood from many addresses that keeps the ordinary places full does not keep the owner out at home.
 * "Failures only" is kept honest under concurrency by charging every attempt up front and giving the token
 * back when the password turns out right (or the check never ran): parallel guesses cannot all pass the
 * limit before the first failure is known. Unknown usernames are counted exactly like known ones, so a 429
 * tells nothing about which accounts exist.
 */
import { localRateLimiters, type RateLimiterFactory } from '../../http/rate-limit.js';
import { HubError } from '../../platform/hub-error.js';
import { sourceKey } from '../../platform/ip-address.js';

export const signInLimits = {
  perAccountAndAddress: 10,
  failuresPerAddress: 30,
  failuresPerUsername: 20,
  checksInFlightPerAddress: 1,
  /** Buckets kept per limiter: usernames and addresses are the caller's choice, memory must not be. */
  maxKeys: 10_000,
  /** Addresses remembered for a successful sign-in (the most recent ones). */
  knownAddresses: 1_000,
} as const;

/**
 * How an admitted attempt ended; exactly one call (later ones are ignored) frees its place in flight.
 * - failed: the password was wrong or the user unknown; it counts everywhere;
 * - succeeded: only failures count against the address and the username;
 * - not_checked: the password was never checked (the bcrypt queue was full); nothing counts.
 */
export interface SignInAttempt {
  /** A password sign-in succeeded from this address lately: its check may take a reserved place. */
  readonly fromKnownAddress: boolean;
  finish(outcome: 'failed' | 'succeeded' | 'not_checked'): void;
}

/** The part of an address one holder controls (an IPv6 /64; an IPv4-mapped address as its IPv4); '' for none. */
export function addressKey(ip: string | null): string {
  return ip ? sourceKey(ip) : '';
}

/** `limiters`: the cluster's shared limiters when several processes serve (decision 0040). */
export function createSignInThrottle(now: () => number, limiters_: RateLimiterFactory = localRateLimiters) {
  const options = { now, maxKeys: signInLimits.maxKeys };
  const limiters = {
    pair: limiters_('sign_in_pair', signInLimits.perAccountAndAddress, options),
    address: limiters_('sign_in_address', signInLimits.failuresPerAddress, options),
    username: limiters_('sign_in_username', signInLimits.failuresPerUsername, options),
  };
  const refusals = {
    pair: 'Too many sign-in attempts for this account; wait a minute.',
    address: 'Too many failed sign-ins from this address; wait a minute.',
    username: 'Too many failed sign-ins for this account; wait a minute.',
  } as const;
  /** Checks under way per address; an entry goes when its count drops to zero. */
  const inFlight = new Map<string, number>();
  /**
   * Addresses whose failures are used up, until when (ms): what `refusal` answers from the address alone. At
   * most maxKeys; past that an address is simply not remembered and `admit` refuses it as before.
   */
  const blockedUntil = new Map<string, number>();
  const inFlightRefusal = () =>
    new HubError('rate_limited', 'A sign-in from this address is being checked; try again.', {
      headers: { 'Retry-After': '1' },
    });
  const block = (address: string, seconds: number) => {
    const at = now();
    if (blockedUntil.size >= signInLimits.maxKeys)
      for (const [key, until] of blockedUntil) if (until <= at) blockedUntil.delete(key);
    if (blockedUntil.size < signInLimits.maxKeys || blockedUntil.has(address))
      blockedUntil.set(address, at + seconds * 1000);
  };
  /** Addresses with a successful sign-in, oldest first (a Map keeps insertion order). */
  const known = new Map<string, true>();
  const remember = (address: string) => {
    known.delete(address);
    known.set(address, true);
    if (known.size > signInLimits.knownAddresses) known.delete(known.keys().next().value ?? '');
  };

  return {
    /** Charges one attempt to every bucket, or refuses (charging none) with the first bucket that is empty. */
    admit(username: string, ip: string | null): SignInAttempt {
      const address = addressKey(ip);
      const checking = inFlight.get(address) ?? 0;
      if (checking >= signInLimits.checksInFlightPerAddress) throw inFlightRefusal();
      const keys = { pair: `${username}|${address}`, address, username };
      const taken: (keyof typeof limiters)[] = [];
      const giveBack = (which: readonly (keyof typeof limiters)[]) => {
        for (const name of which) limiters[name].refund(keys[name]);
      };
      for (const name of ['pair', 'address', 'username'] as const) {
        const decision = limiters[name].take(keys[name]);
        if (!decision.allowed) {
          giveBack(taken);
          if (name === 'address') block(address, decision.retryAfterSeconds);
          throw new HubError('rate_limited', refusals[name], {
            headers: { 'Retry-After': String(decision.retryAfterSeconds) },
          });
        }
        taken.push(name);
      }
      inFlight.set(address, checking + 1);
      let finished = false;
      return {
        fromKnownAddress: known.has(address),
        finish(outcome) {
          if (finished) return;
          finished = true;
          const left = (inFlight.get(address) ?? 1) - 1;
          if (left > 0) inFlight.set(address, left);
          else inFlight.delete(address);
          // The pair bucket counts every attempt, right password or not (10 a minute is plenty for a person).
          if (outcome === 'succeeded') {
            giveBack(['address', 'username']);
            remember(address);
          }
          if (outcome === 'not_checked') giveBack(['pair', 'address', 'username']);
        },
      };
    },

    /**
     * What `admit` would refuse from the address alone, without charging anything or reading the request's
     * body: a check from it under way, or its failures used up (until the Retry-After it was told). Null when
     * only `admit` can tell (it needs the username).
     */
    refusal(ip: string | null): HubError | null {
      const address = addressKey(ip);
      if ((inFlight.get(address) ?? 0) >= signInLimits.checksInFlightPerAddress) return inFlightRefusal();
      const until = blockedUntil.get(address);
      if (until === undefined) return null;
      const left = until - now();
      if (left <= 0) {
        blockedUntil.delete(address);
        return null;
      }
      return new HubError('rate_limited', refusals.address, {
        headers: { 'Retry-After': String(Math.max(1, Math.ceil(left / 1000))) },
      });
    },

    /** Buckets held, per limiter (tests: memory stays bounded). */
    sizes: () => ({
      pair: limiters.pair.size,
      address: limiters.address.size,
      username: limiters.username.size,
      inFlight: inFlight.size,
      known: known.size,
      blocked: blockedUntil.size,
    }),
  };
}
