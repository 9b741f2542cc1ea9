/**
 * Issue 19, agent routing across hub processes (decision 0039): which process holds each agent's channel.
 * `assets.agent_node` is the node id of the process that marked the asset online last; a disconnect, a
 * process start and a node's departure change only the agents their own node holds.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const agentNodeMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('assets').addColumn('agent_node', 'text').execute();
    await db.schema.createIndex('assets_agent_node_idx').on('assets').column('agent_node').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('assets_agent_node_idx').execute();
    await db.schema.alterTable('assets').dropColumn('agent_node').execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */
