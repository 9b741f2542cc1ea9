/**
 * Issue 28, item 16 (decision 0052): the subnets an asset's agent reports (`assets.ip_networks`, a JSON list
 * of IPv4 `address/prefix`), so Wake-on-LAN chooses a relay on the target's own subnet rather than on any
 * wider network an agent claims. Null until the asset's agent says hello with its interfaces.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const assetNetworksMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('assets').addColumn('ip_networks', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('assets').dropColumn('ip_networks').execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */
