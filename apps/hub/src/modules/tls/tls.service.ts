import type { TlsInfo, TlsStatus, TlsUpload } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import { CertificateProblem, describeCertificate } from '../../platform/tls/certificates.js';
import type { TlsManager, TlsOverride } from '../../platform/tls/tls-manager.js';
import type { ActionContext } from '../../access/principal.js';
import type { AuditService } from '../audit/audit.service.js';
import { deleteSetting, readSetting, writeSetting } from '../../platform/db/key-values.js';
import type { CacheInvalidation } from '../../platform/cluster/invalidation.js';

const overrideKey = 'tls.override';

function isOverride(value: unknown): value is TlsOverride {
  const v = value as Partial<TlsOverride> | null;
  return (
    typeof v?.certPem === 'string' && typeof v.keySealed === 'string' && typeof v.uploadedAt === 'string'
  );
}

export function loadTlsOverride(db: Kysely<Database>): Promise<TlsOverride | null> {
  return readSetting(db, overrideKey).then((value) => (isOverride(value) ? value : null));
}

/**
 * The names a browser can open the hub by: the certificate's DNS names, wildcards left out (no one types
 * one). The console offers them when it was opened by an IP address, where passkeys cannot work.
 */
function dnsNamesOf(status: TlsStatus): string[] {
  return (status.certificate?.subject_alt_names ?? [])
    .filter((name) => name.startsWith('DNS:') && !name.includes('*'))
    .map((name) => name.slice('DNS:'.length));
}

/** The cache invalidation topic that tells the other processes to serve the stored override (decision 0044). */
export const tlsOverrideTopic = 'tls';

export function createTlsService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  tls: TlsManager;
  /** Tells the cluster's other processes that the override changed; they reload it (decision 0044). */
  invalidation?: Pick<CacheInvalidation, 'invalidate'>;
}) {
  const { db, clock, audit, tls } = deps;
  const tellPeers = () => deps.invalidation?.invalidate(tlsOverrideTopic, overrideKey);
  return {
    status(): TlsStatus {
      return tls.status();
    },

    info(): TlsInfo {
      const status = tls.status();
      return {
        mode: status.mode,
        source: status.source,
        fingerprint_sha256: status.certificate?.fingerprint_sha256 ?? null,
        expires_at: status.certificate?.not_after ?? null,
        dns_names: dnsNamesOf(status),
        ca_fingerprint_sha256: status.ca_download ? (status.ca?.fingerprint_sha256 ?? null) : null,
      };
    },

    caCertificate(): string {
      const pem = tls.caCertificate();
      if (!pem)
        throw new HubError(
          'not_found',
          'This hub does not serve its own CA (TLS is external, uploaded or disabled).',
        );
      return pem;
    },

    async upload(ctx: ActionContext, input: TlsUpload): Promise<TlsStatus> {
      let prepared;
      try {
        prepared = tls.prepareOverride(input.certificate, input.private_key, ctx.principal.userId);
      } catch (error) {
        if (error instanceof CertificateProblem) {
          const [field, ...rest] = error.message.split(': ');
          if (rest.length > 0 && (field === 'certificate' || field === 'private_key'))
            throw validationError(`body.${field}`, rest.join(': '));
          throw new HubError('conflict', error.message);
        }
        throw error;
      }
      const uploaded = describeCertificate(prepared.pair.certPem);
      await db.transaction().execute(async (trx) => {
        await writeSetting(trx, overrideKey, prepared.override, clock.now());
        await audit.record(trx, ctx, {
          action: 'tls.override_uploaded',
          targetType: 'settings',
          targetId: overrideKey,
          detail: {
            subject: uploaded.subject,
            fingerprint: uploaded.fingerprint_sha256,
            not_after: uploaded.not_after,
          },
        });
      });
      const status = tls.applyOverride(prepared.override, prepared.pair);
      tellPeers();
      return status;
    },

    async clear(ctx: ActionContext): Promise<TlsStatus> {
      await db.transaction().execute(async (trx) => {
        await deleteSetting(trx, overrideKey);
        await audit.record(trx, ctx, {
          action: 'tls.override_cleared',
          targetType: 'settings',
          targetId: overrideKey,
        });
      });
      const status = await tls.clearOverride();
      tellPeers();
      return status;
    },
  };
}

export type TlsService = ReturnType<typeof createTlsService>;
