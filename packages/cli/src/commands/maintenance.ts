/** `svc maintenance ls|active|create|rm`: maintenance windows (docs/maintenance.md). */
import type { Command } from 'commander';
import { isId, paginationLimits, type MaintenanceWindow, type MaintenanceWindowCreate } from '@svc/protocol';
import type { SvcClient } from '@svc/sdk';
import { parseInteger, parseList } from '../args.js';
import type { Context } from '../context.js';
import { CliError, exitCodes } from '../exit-codes.js';
import { formatFields, formatMaintenanceTable, formatTable, formatTime } from '../format.js';
import { resolveAsset, resolveAssetIds, resolveGroup } from '../resolve.js';

const maxListed = 10_000;

interface CreateOptions {
  name: string;
  reason: string;
  assets?: string;
  groups?: string;
  start?: string;
  end?: string;
  cron?: string;
  duration?: string;
  timezone?: string;
}

function parseTime(value: string, option: string): string {
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(time)) {
    throw new CliError(`${option} must be a time like 2027-01-31T22:00:00Z, not "${value}"`, exitCodes.usage);
  }
  return new Date(time).toISOString();
}

/** The timing options: --start and --end, or --cron and --duration (minutes). */
type Timing = Pick<
  MaintenanceWindowCreate,
  'starts_at' | 'ends_at' | 'cron' | 'duration_minutes' | 'timezone'
>;

function timingOf(options: CreateOptions): Timing {
  const oneOff = options.start !== undefined || options.end !== undefined;
  const recurring = options.cron !== undefined || options.duration !== undefined;
  if (oneOff === recurring) {
    throw new CliError('give --start and --end, or --cron and --duration', exitCodes.usage);
  }
  const zone: Timing = options.timezone !== undefined ? { timezone: options.timezone } : {};
  if (oneOff) {
    if (options.start === undefined || options.end === undefined) {
      throw new CliError('a one-off window needs both --start and --end', exitCodes.usage);
    }
    return {
      starts_at: parseTime(options.start, '--start'),
      ends_at: parseTime(options.end, '--end'),
      ...zone,
    };
  }
  if (options.cron === undefined || options.duration === undefined) {
    throw new CliError('a recurring window needs both --cron and --duration', exitCodes.usage);
  }
  return {
    cron: options.cron,
    duration_minutes: parseInteger(options.duration, '--duration', 1, 7 * 24 * 60),
    ...zone,
  };
}

async function listWindows(
  client: SvcClient,
  query: { asset?: string; active?: boolean },
  limit: number,
): Promise<MaintenanceWindow[]> {
  const windows: MaintenanceWindow[] = [];
  for (let page = 1; windows.length < limit; page++) {
    const answer = await client.call('maintenance.list', {
      query: { ...query, page, per_page: Math.min(paginationLimits.maxPerPage, limit) },
    });
    windows.push(...answer.data);
    if (answer.data.length === 0 || page * answer.meta.per_page >= answer.meta.total) break;
  }
  return windows.slice(0, limit);
}

/** A window by id, or by name when exactly one window has it. */
async function resolveWindowId(client: SvcClient, ref: string): Promise<string> {
  if (isId(ref, 'maintenanceWindow')) return ref;
  const matches = (await listWindows(client, {}, maxListed)).filter((w) => w.name === ref);
  if (matches.length === 1 && matches[0]) return matches[0].id;
  if (matches.length > 1) {
    throw new CliError(
      `${String(matches.length)} maintenance windows are named "${ref}"`,
      exitCodes.usage,
      `give one by id: ${matches.map((w) => w.id).join(', ')}`,
    );
  }
  throw new CliError(`no maintenance window "${ref}"`, exitCodes.notFound, '`svc maintenance ls` lists them');
}

export function registerMaintenance(program: Command, ctx: Context): void {
  const maintenance = program
    .command('maintenance')
    .description('maintenance windows: alerts suppressed, schedules allowed to run');

  maintenance
    .command('ls')
    .alias('list')
    .description('list maintenance windows')
    .option('--asset <asset>', 'only windows covering this asset (name or id)')
    .option('--active', 'only windows holding now')
    .option('--limit <n>', 'list at most this many', '1000')
    .action(async (options: { asset?: string; active?: boolean; limit: string }, command: Command) => {
      const limit = parseInteger(options.limit, '--limit', 1, maxListed);
      const { client } = ctx.connect(command);
      const asset = options.asset !== undefined ? (await resolveAsset(client, options.asset)).id : undefined;
      const listed = await listWindows(
        client,
        { ...(asset !== undefined ? { asset } : {}), ...(options.active ? { active: true } : {}) },
        limit,
      );
      if (ctx.globals(command).json) ctx.json(listed);
      else if (listed.length === 0) ctx.note('no maintenance windows');
      else ctx.out(formatMaintenanceTable(listed));
    });

  maintenance
    .command('active')
    .description('the assets in a maintenance window now')
    .action(async (_options: unknown, command: Command) => {
      const { client } = ctx.connect(command);
      const active = (await client.call('maintenance.active', {})).data;
      if (ctx.globals(command).json) ctx.json(active);
      else if (active.length === 0) ctx.note('no asset is in a maintenance window');
      else
        ctx.out(
          formatTable(
            ['ASSET', 'UNTIL', 'WINDOWS'],
            active.map((a) => [a.asset_id, formatTime(a.until), a.window_ids.join(',')]),
          ),
        );
    });

  maintenance
    .command('create')
    .description('create a window: --start/--end (one-off) or --cron/--duration (recurring)')
    .requiredOption('--name <name>', 'what it is called')
    .requiredOption('--reason <text>', 'why the machines are under maintenance')
    .option('--assets <list>', 'comma-separated assets (names or ids)')
    .option('--groups <list>', 'comma-separated groups (names or ids)')
    .option('--start <time>', 'one-off: when it starts (ISO 8601)')
    .option('--end <time>', 'one-off: when it ends (ISO 8601)')
    .option('--cron <expression>', 'recurring: when each occurrence starts (5 fields)')
    .option('--duration <minutes>', 'recurring: how long each occurrence lasts')
    .option('--timezone <zone>', 'the IANA zone the cron is read in (default UTC)')
    .action(async (options: CreateOptions, command: Command) => {
      const timing = timingOf(options);
      if (options.assets === undefined && options.groups === undefined) {
        throw new CliError('name --assets or --groups', exitCodes.usage);
      }
      const { client } = ctx.connect(command);
      const assetIds = options.assets
        ? [...(await resolveAssetIds(client, parseList(options.assets))).keys()]
        : [];
      const groupIds: string[] = [];
      for (const ref of parseList(options.groups ?? '')) groupIds.push((await resolveGroup(client, ref)).id);
      const created = (
        await client.call('maintenance.create', {
          body: {
            name: options.name,
            reason: options.reason,
            ...(assetIds.length > 0 ? { asset_ids: assetIds } : {}),
            ...(groupIds.length > 0 ? { group_ids: groupIds } : {}),
            ...timing,
          },
        })
      ).data;
      if (ctx.globals(command).json) {
        ctx.json(created);
        return;
      }
      ctx.out(
        formatFields([
          ['id', created.id],
          ['name', created.name],
          ['reason', created.reason],
          ['next', formatTime(created.current?.starts_at ?? created.next_occurrences[0]?.starts_at)],
        ]),
      );
    });

  maintenance
    .command('rm')
    .alias('delete')
    .description('remove a window (an occurrence holding now ends now)')
    .argument('<window>', 'id, or name')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const { client } = ctx.connect(command);
      const id = await resolveWindowId(client, ref);
      const removed = (await client.call('maintenance.delete', { params: { id } })).data;
      if (ctx.globals(command).json) ctx.json(removed);
      else ctx.note(`removed ${removed.name} (${removed.id})`);
    });
}
