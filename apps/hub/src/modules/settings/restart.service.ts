import type { RestartResult } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { ActionContext } from '../../access/principal.js';
import type { AuditService } from '../audit/audit.service.js';

/** Restarts are audited first; the restart itself runs after the response has gone out. */
export function createRestartService(deps: {
  db: Kysely<Database>;
  audit: AuditService;
  requestRestart: (() => void) | null;
}) {
  return async (ctx: ActionContext): Promise<RestartResult> => {
    const restart = deps.requestRestart;
    await deps.db.transaction().execute((trx) =>
      deps.audit.record(trx, ctx, {
        action: 'hub.restart_requested',
        detail: { supported: restart !== null },
      }),
    );
    if (!restart) {
      return {
        restarting: false,
        message: 'This hub runs embedded (not from its own main); restart it with its supervisor.',
      };
    }
    setTimeout(restart, 100).unref();
    return { restarting: true, message: 'The hub restarts now and answers again in a few seconds.' };
  };
}
