/**
 * The dialer's name lookup: resolve once, judge every address, hand the socket only what was judged. Because
 * the socket connects to the address this function returns, a name that answers differently on a second query
 * (DNS rebinding) cannot slip a different address past the check.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { checkAddress, ipLiteralOf, type OutboundPolicy } from './address-policy.js';
import { OutboundRefused } from './outbound-refused.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Name → addresses. Injected so tests can make any name resolve to loopback without touching DNS. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, order: 'verbatim' });
  return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
};

/** Throws OutboundRefused(`blocked_address`) unless the policy allows the address. */
export function assertAddressAllowed(host: string, address: string, policy: OutboundPolicy): void {
  const verdict = checkAddress(address, policy);
  if (!verdict.allowed) {
    throw new OutboundRefused(
      'blocked_address',
      host,
      `${host}: ${verdict.category} address refused`,
      verdict,
    );
  }
}

/**
 * The addresses a connection to `host` may use, or OutboundRefused. An IP literal is judged as it is, without a
 * lookup; for a name, one refused address refuses the whole answer (a mixed answer is how rebinding hides).
 */
export async function resolveAllowed(
  host: string,
  policy: OutboundPolicy,
  resolver: Resolver,
): Promise<readonly ResolvedAddress[]> {
  const literal = ipLiteralOf(host);
  if (literal !== null) {
    assertAddressAllowed(host, literal, policy);
    return [{ address: literal, family: literal.includes(':') ? 6 : 4 }];
  }
  let answers: readonly ResolvedAddress[];
  try {
    answers = await resolver(host);
  } catch (error) {
    throw new OutboundRefused('dns_failed', host, `${host}: name lookup failed`, null, { cause: error });
  }
  if (answers.length === 0) throw new OutboundRefused('dns_failed', host, `${host}: name has no address`);
  for (const answer of answers) assertAddressAllowed(host, answer.address, policy);
  return answers;
}

/** A `lookup` for net/tls/http/ws options; reads the policy at each connect so a change applies at once. */
export function createGuardedLookup(getPolicy: () => OutboundPolicy, resolver: Resolver): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    resolveAllowed(hostname, getPolicy(), resolver).then(
      (answers) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : null;
        const usable = wanted === null ? answers : answers.filter((answer) => answer.family === wanted);
        const first = usable[0];
        if (!first) {
          callback(
            new OutboundRefused('dns_failed', hostname, `${hostname}: no IPv${String(wanted)} address`),
            '',
          );
          return;
        }
        if (options.all === true) {
          callback(
            null,
            usable.map((answer): LookupAddress => ({ ...answer })),
          );
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: unknown) => {
        callback(error instanceof Error ? error : new Error(String(error)), '');
      },
    );
  };
}
