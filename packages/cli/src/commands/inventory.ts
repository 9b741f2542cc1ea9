/**
 * `svc inventory --list | --host <name>`: the script inventory protocol of Ansible (docs/ansible.md, decision
 * 0076). Ansible runs an executable with only those arguments, so the hub and key come from the saved login
 * or SVC_* variables, as for every command; a wrapper script may add `--config` or `--hub`.
 */
import type { Command } from 'commander';
import { paginationLimits, type Asset, type Group } from '@svc/protocol';
import type { SvcClient } from '@svc/sdk';
import type { Context } from '../context.js';
import { CliError, exitCodes } from '../exit-codes.js';
import { buildInventory, inventoryHostJson, inventoryListJson } from '../inventory.js';

/** Pages read of each list at most: 200 × 500 = 100,000 assets (or groups). */
const maxPages = 200;

interface InventoryOptions {
  list?: boolean;
  host?: string;
}

interface Paged<T> {
  data: T[];
  meta: { total: number; per_page: number };
}

/** Every item of a list route, page by page (500 each), up to `maxPages`; more is refused, not cut short. */
async function readAll<T>(what: string, readPage: (page: number) => Promise<Paged<T>>): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; page <= maxPages; page++) {
    const answer = await readPage(page);
    items.push(...answer.data);
    if (answer.data.length === 0 || page * answer.meta.per_page >= answer.meta.total) return items;
  }
  throw new CliError(
    `more than ${String(maxPages * paginationLimits.maxPerPage)} ${what}: too many for one inventory`,
    exitCodes.usage,
    'use a key limited to some assets (allowed_assets)',
  );
}

function readAssets(client: SvcClient): Promise<Asset[]> {
  return readAll('assets', async (page) =>
    client.call('assets.list', { query: { page, per_page: paginationLimits.maxPerPage } }),
  );
}

function readGroups(client: SvcClient): Promise<Group[]> {
  return readAll('groups', async (page) =>
    client.call('groups.list', { query: { page, per_page: paginationLimits.maxPerPage } }),
  );
}

export function registerInventory(program: Command, ctx: Context): void {
  program
    .command('inventory')
    .description('the assets and groups as an Ansible inventory script (docs/ansible.md)')
    .option('--list', "every group and host, with the hosts' variables in _meta (JSON)")
    .option('--host <name>', "one host's variables (JSON; {} for a name not in the inventory)")
    .action(async (options: InventoryOptions, command: Command) => {
      if ((options.list === true) === (options.host !== undefined)) {
        throw new CliError('give either --list or --host <name>', exitCodes.usage);
      }
      const { client } = ctx.connect(command);
      const [assets, groups] = await Promise.all([readAssets(client), readGroups(client)]);
      const inventory = buildInventory(assets, groups);
      ctx.json(
        options.host === undefined
          ? inventoryListJson(inventory)
          : inventoryHostJson(inventory, options.host),
      );
    });
}
