/** `svc assets ls`, `svc assets show <id|name>` and `svc assets blast-radius <id|name>`. */
import { Option, type Command } from 'commander';
import { assetStatuses, blastRadiusLimits, paginationLimits, platforms, type Asset } from '@svc/protocol';
import { parseInteger } from '../args.js';
import type { Context } from '../context.js';
import { formatAsset, formatAssetTable, formatBlastRadius } from '../format.js';
import { resolveAsset, resolveGroup } from '../resolve.js';

/** Assets listed at most (`--limit`); pages of 500 are read up to it. */
const maxListed = 100_000;

interface ListOptions {
  status?: (typeof assetStatuses)[number];
  platform?: (typeof platforms)[number];
  group?: string;
  search?: string;
  limit: string;
}

export function registerAssets(program: Command, ctx: Context): void {
  const assets = program.command('assets').description('the assets of the fleet');

  assets
    .command('ls')
    .alias('list')
    .description('list assets (all pages, up to --limit)')
    .addOption(new Option('--status <status>', 'only assets with this status').choices(assetStatuses))
    .addOption(new Option('--platform <platform>', 'only assets of this platform').choices(platforms))
    .option('--group <group>', 'only members of this group (name or id)')
    .option('--search <text>', 'text in the name, hostname, an IP address or a tag')
    .option('--limit <n>', 'list at most this many', '1000')
    .action(async (options: ListOptions, command: Command) => {
      const limit = parseInteger(options.limit, '--limit', 1, maxListed);
      const { client } = ctx.connect(command);
      const group = options.group ? (await resolveGroup(client, options.group)).id : undefined;
      const found: Asset[] = [];
      for (let page = 1; found.length < limit; page++) {
        const answer = await client.call('assets.list', {
          query: {
            page,
            per_page: Math.min(paginationLimits.maxPerPage, limit),
            ...(options.status ? { status: options.status } : {}),
            ...(options.platform ? { platform: options.platform } : {}),
            ...(group ? { group } : {}),
            ...(options.search ? { q: options.search } : {}),
          },
        });
        found.push(...answer.data);
        if (answer.data.length === 0 || page * answer.meta.per_page >= answer.meta.total) break;
      }
      const listed = found.slice(0, limit);
      if (ctx.globals(command).json) ctx.json(listed);
      else if (listed.length === 0) ctx.note('no assets');
      else ctx.out(formatAssetTable(listed));
    });

  assets
    .command('show')
    .description('one asset in full')
    .argument('<asset>', 'name or id')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const { client } = ctx.connect(command);
      const asset = await resolveAsset(client, ref);
      if (ctx.globals(command).json) ctx.json(asset);
      else ctx.out(formatAsset(asset));
    });

  assets
    .command('blast-radius')
    .description('what breaks if this asset goes down: what depends on it, directly or through others')
    .argument('<asset>', 'name or id')
    .option('--depth <n>', `follow at most this many links (1-${String(blastRadiusLimits.maxDepth)})`)
    .action(async (ref: string, options: { depth?: string }, command: Command) => {
      const depth =
        options.depth === undefined
          ? undefined
          : parseInteger(options.depth, '--depth', 1, blastRadiusLimits.maxDepth);
      const { client } = ctx.connect(command);
      const asset = await resolveAsset(client, ref);
      const answer = await client.call('dependencies.blastRadius', {
        params: { id: asset.id },
        query: depth === undefined ? {} : { max_depth: depth },
      });
      if (ctx.globals(command).json) ctx.json(answer.data);
      else ctx.out(formatBlastRadius(answer.data));
    });
}
