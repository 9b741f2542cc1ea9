import type { ApiKey, Role } from '@svc/protocol';
import { readStringList } from '../../platform/db/paging.js';
import type { ApiKeyRow } from './keys.repository.js';

/** The only way a key row leaves the service: the hash never does. */
export function presentApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    role: row.role as Role,
    scopes: readStringList(row.scopes),
    allowed_assets: readStringList(row.allowed_assets),
    expires_at: row.expires_at,
    created_by: row.created_by,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
  };
}
