import type { Handlers } from '../../http/register-routes.js';
import type { BackupService } from './backup.service.js';

export function backupRoutes(backup: BackupService) {
  return {
    'backup.datastores': ({ params, ctx }) => backup.datastores(ctx.principal, params.id),
  } satisfies Handlers;
}
