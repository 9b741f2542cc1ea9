/**
 * What an admin's create or update of a connector becomes: its URL vetted by the egress guard, its TLS choice
 * checked, its credentials sealed (never returned), and the stored row or the changes to it.
 */
import type { ConnectorCreate, ConnectorUpdate } from '@svc/protocol';
import { tlsProblem, type ConnectorTls } from '../../connectors/base/connector-tls.js';
import { validationError } from '../../platform/hub-error.js';
import type { LiveOutbound } from '../../platform/outbound/live-policy.js';
import { vetOutboundUrl } from '../../platform/outbound/outbound-url.js';
import type { SecretBox } from '../../platform/secret-box.js';
import type { ConnectorRow } from './connectors.repository.js';
import { credentialsContext } from './connector-upstreams.js';

/** A base URL the egress guard lets through: absolute, without credentials, query or fragment. */
export async function vetUrl(outbound: LiveOutbound, text: string): Promise<void> {
  await vetOutboundUrl(outbound.client(), text, {
    field: 'base_url',
    baseOnly: true,
    credentialsHint: 'use credentials',
  });
}

function checkTls(tls: ConnectorTls): void {
  const problem = tlsProblem(tls);
  if (problem) throw validationError(problem.field, problem.problem);
}

/** A new connector's row, after the TLS check (the URL is vetted by the caller). */
export function newConnectorRow(
  box: SecretBox,
  input: ConnectorCreate,
  row: { id: string; now: string },
): ConnectorRow {
  const { id, now } = row;
  const tls: ConnectorTls = {
    mode: input.tls_mode ?? 'system',
    ca: input.tls_ca ?? null,
    fingerprint: input.tls_fingerprint ?? null,
  };
  checkTls(tls);
  return {
    id,
    kind: input.kind,
    name: input.name,
    base_url: input.base_url,
    username: input.username ?? null,
    credentials_sealed: box.seal(input.credentials, credentialsContext(id)),
    tls_mode: tls.mode,
    tls_ca: tls.mode === 'pinned_ca' ? tls.ca : null,
    tls_fingerprint: tls.mode === 'fingerprint' ? tls.fingerprint : null,
    enabled: input.enabled === false ? 0 : 1,
    health: 'unknown',
    last_error: null,
    last_checked_at: null,
    created_at: now,
    updated_at: now,
  };
}

/** The changes an update makes to a connector's row (its new URL vetted, its TLS choice checked). */
export async function connectorChanges(
  deps: { box: SecretBox; outbound: LiveOutbound },
  row: ConnectorRow,
  input: ConnectorUpdate,
  now: string,
): Promise<Partial<ConnectorRow>> {
  const { id } = row;
  const changes: Partial<ConnectorRow> = { updated_at: now };
  if (input.name !== undefined) changes.name = input.name;
  if (input.base_url !== undefined) {
    await vetUrl(deps.outbound, input.base_url);
    changes.base_url = input.base_url;
  }
  if (input.username !== undefined) changes.username = input.username;
  if (input.credentials !== undefined)
    changes.credentials_sealed = deps.box.seal(input.credentials, credentialsContext(id));
  if (input.enabled !== undefined) changes.enabled = input.enabled ? 1 : 0;
  if (input.tls_mode !== undefined || input.tls_ca !== undefined || input.tls_fingerprint !== undefined) {
    const mode = input.tls_mode ?? (row.tls_mode as ConnectorTls['mode']);
    const tls: ConnectorTls = {
      mode,
      ca: input.tls_ca === undefined ? row.tls_ca : input.tls_ca,
      fingerprint: input.tls_fingerprint === undefined ? row.tls_fingerprint : input.tls_fingerprint,
    };
    checkTls(tls);
    changes.tls_mode = mode;
    changes.tls_ca = mode === 'pinned_ca' ? tls.ca : null;
    changes.tls_fingerprint = mode === 'fingerprint' ? tls.fingerprint : null;
  }
  // What the last check said no longer speaks for a connector pointed elsewhere or with other credentials.
  if (
    changes.base_url !== undefined ||
    changes.credentials_sealed !== undefined ||
    changes.tls_mode !== undefined
  ) {
    changes.health = 'unknown';
    changes.last_error = null;
  }
  return changes;
}
