/**
 * A URL a user gives the hub to dial later (a webhook, a connector's base URL, a notification channel, a push
 * endpoint), vetted when it is saved: the one check all of them run, so none of them stores a URL another
 * would refuse.
 */
import { validationError } from '../hub-error.js';
import type { OutboundClient } from './outbound-client.js';
import { findOutboundRefused } from './outbound-refused.js';

export interface OutboundUrlRules {
  /** The request field the URL came in: the 400 names it. */
  field: string;
  /** A base URL (a connector's): scheme, host, port and a path, no query or fragment. */
  baseOnly?: boolean;
  /** What to send instead of credentials in the URL, for the message (`use credentials`). */
  credentialsHint?: string;
}

/**
 * The URL, parsed, when the egress guard would let the hub reach it now; else HubError `validation` naming the
 * field. Credentials in the URL are refused everywhere: the outbound client sends only origin and path, so they
 * would never be used, and they would be stored and shown back in clear.
 */
export async function vetOutboundUrl(
  outbound: Pick<OutboundClient, 'vet'>,
  text: string,
  rules: OutboundUrlRules,
): Promise<URL> {
  const { field } = rules;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw validationError(field, 'not an absolute URL');
  }
  if (url.username !== '' || url.password !== '') {
    const hint = rules.credentialsHint === undefined ? '' : `; ${rules.credentialsHint}`;
    throw validationError(field, `credentials in the URL are not accepted${hint}`);
  }
  if (rules.baseOnly === true && (url.search !== '' || url.hash !== '')) {
    throw validationError(field, 'no query or fragment: scheme, host, port and an optional path');
  }
  try {
    await outbound.vet(url);
  } catch (error) {
    const refused = findOutboundRefused(error);
    if (refused) throw validationError(field, `refused by the egress guard: ${refused.message}`);
    throw error;
  }
  return url;
}
