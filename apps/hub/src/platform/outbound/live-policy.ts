/**
 * The outbound client as the runtime settings want it: `security.outbound_allow_private` changes through the
 * API without a restart, so every use takes the client through here and the policy follows the setting.
 */
import type { OutboundPrivateMode } from '@svc/protocol';
import type { OutboundPolicy } from './address-policy.js';
import {
  createOutboundClient,
  type OutboundClient,
  type OutboundClientOptions,
  type OutboundTls,
} from './outbound-client.js';

export interface LiveOutbound {
  /** The client, its policy brought up to date with the setting first. */
  client(): OutboundClient;
  /**
   * Another live client with the same policy and resolver but its own certificate checks (a connector's CA,
   * pinned fingerprint, or explicit no-verification). The caller closes it.
   */
  derive(tls: { ca?: string; tls?: OutboundTls }): LiveOutbound;
  close(): Promise<void>;
}

export function createLiveOutbound(
  options: Omit<OutboundClientOptions, 'policy'> & {
    /** The start-up policy (opt-ins from the environment). */
    base: OutboundPolicy;
    allowPrivate: () => OutboundPrivateMode;
  },
): LiveOutbound {
  const { base, allowPrivate, ...clientOptions } = options;
  const client = createOutboundClient({
    ...clientOptions,
    policy: { ...base, allowPrivate: allowPrivate() },
  });
  return {
    client() {
      const wanted = allowPrivate();
      if (client.policy.allowPrivate !== wanted) client.setPolicy({ ...client.policy, allowPrivate: wanted });
      return client;
    },
    derive: ({ ca, tls }) =>
      createLiveOutbound({
        ...clientOptions,
        ...(ca !== undefined ? { ca } : {}),
        ...(tls !== undefined ? { tls } : {}),
        base,
        allowPrivate,
      }),
    close: () => client.close(),
  };
}
