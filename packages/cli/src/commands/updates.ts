/** `svc updates ls|show|refresh|run|runs|run-show|cancel`: package updates and update runs (docs/updates.md). */
import type { Command } from 'commander';
import {
  paginationLimits,
  updateRunLimits,
  type AssetUpdateStatus,
  type UpdateRun,
  type UpdateRunCreate,
  type UpdateRunDetail,
} from '@svc/protocol';
import { parseInteger } from '../args.js';
import type { Context } from '../context.js';
import { CliError, exitCodes } from '../exit-codes.js';
import { formatTable, formatTime } from '../format.js';
import { resolveAsset } from '../resolve.js';

const maxListed = 10_000;
const ended = new Set(['completed', 'stopped', 'cancelled', 'failed']);

interface RunOptions {
  group?: string;
  dryRun?: boolean;
  apply?: boolean;
  security?: boolean;
  packages?: string;
  reboot?: boolean;
  concurrency?: string;
  maxFailures?: string;
  timeout?: string;
  at?: string;
  nextWindow?: boolean;
  wait?: boolean;
}

function fleetTable(rows: readonly AssetUpdateStatus[]): string {
  return formatTable(
    ['ASSET', 'MANAGER', 'UPDATES', 'SECURITY', 'REBOOT', 'LAST PATCHED', 'CHECKED', 'ERROR'],
    rows.map((r) => [
      r.asset_name,
      r.manager ?? '-',
      r.updates === null ? '-' : String(r.updates),
      r.security_updates === null ? '-' : String(r.security_updates),
      r.reboot_required === null ? '-' : r.reboot_required ? 'yes' : 'no',
      formatTime(r.last_patched_at),
      formatTime(r.checked_at),
      r.error ?? '',
    ]),
  );
}

function runsTable(runs: readonly UpdateRun[]): string {
  return formatTable(
    ['ID', 'MODE', 'SELECTION', 'STATUS', 'TARGETS', 'OK', 'FAILED', 'OFFLINE', 'SKIPPED', 'CREATED'],
    runs.map((r) => [
      r.id,
      r.mode,
      r.selection,
      r.status,
      String(r.counts.total),
      String(r.counts.ok),
      String(r.counts.failed),
      String(r.counts.offline),
      String(r.counts.skipped + r.counts.cancelled),
      formatTime(r.created_at),
    ]),
  );
}

function resultsTable(run: UpdateRunDetail): string {
  return formatTable(
    ['ASSET', 'STATUS', 'MANAGER', 'CHANGES', 'EXIT', 'REBOOT', 'ERROR'],
    run.results.map((r) => [
      r.asset_name,
      r.status,
      r.manager ?? '-',
      String(r.changes),
      r.exit_code === null ? '-' : String(r.exit_code),
      r.rebooting ? 'rebooting' : r.reboot_required ? 'needed' : '-',
      r.error ?? '',
    ]),
  );
}

export function registerUpdates(program: Command, ctx: Context): void {
  const updates = program.command('updates').description('package updates and update runs');

  updates
    .command('ls')
    .alias('list')
    .description('which machines need updates: counts, security updates, reboot, last patched')
    .option('--security', 'only machines with security updates')
    .option('--needs-updates', 'only machines with at least one update')
    .option('--group <group>', 'only the members of this group (id)')
    .action(
      async (options: { security?: boolean; needsUpdates?: boolean; group?: string }, command: Command) => {
        const { client } = ctx.connect(command);
        const rows: AssetUpdateStatus[] = [];
        for (let page = 1; rows.length < maxListed; page++) {
          const answer = await client.call('updates.fleet', {
            query: {
              page,
              per_page: paginationLimits.maxPerPage,
              ...(options.security ? { security: true } : {}),
              ...(options.needsUpdates ? { needs_updates: true } : {}),
              ...(options.group ? { group: options.group } : {}),
            },
          });
          rows.push(...answer.data);
          if (answer.data.length === 0 || page * answer.meta.per_page >= answer.meta.total) break;
        }
        if (ctx.globals(command).json) ctx.json(rows);
        else if (rows.length === 0) ctx.note('no reports');
        else ctx.out(fleetTable(rows));
      },
    );

  updates
    .command('show')
    .description("one asset's available updates, as last reported")
    .argument('<asset>', 'name or id')
    .option('--refresh', 'ask the agent now')
    .action(async (ref: string, options: { refresh?: boolean }, command: Command) => {
      const { client } = ctx.connect(command);
      const asset = await resolveAsset(client, ref);
      const report = options.refresh
        ? (await client.call('updates.refresh', { params: { id: asset.id } })).data
        : (await client.call('updates.asset', { params: { id: asset.id } })).data;
      if (ctx.globals(command).json) {
        ctx.json(report);
        return;
      }
      ctx.out(fleetTable([report]));
      ctx.out(
        formatTable(
          ['PACKAGE', 'CURRENT', 'NEW', 'SOURCE', 'SECURITY'],
          report.packages.map((p) => [
            p.name,
            p.current_version ?? '-',
            p.new_version,
            p.source ?? '-',
            p.security ? 'yes' : '',
          ]),
        ),
      );
    });

  updates
    .command('run')
    .description('start an update run (--dry-run or --apply) on assets or a group')
    .argument('[assets...]', 'names or ids (or --group)')
    .option('--group <group>', 'a group id instead of assets')
    .option('--dry-run', "the package manager's simulation only")
    .option('--apply', 'install the updates')
    .option('--security', 'only security updates')
    .option('--packages <names>', 'comma-separated package names to upgrade')
    .option('--reboot', 'reboot after the apply when the machine then needs it')
    .option('--concurrency <n>', `targets at once (1-${String(updateRunLimits.maxConcurrency)}, default 10)`)
    .option('--max-failures <n>', 'start no new target after this many failed')
    .option('--timeout <minutes>', 'how long the manager may run on one target')
    .option('--at <time>', 'start at this ISO 8601 time')
    .option('--next-window', 'start in the next maintenance window of all targets')
    .option('--wait', 'follow the run until it ends and show each result')
    .action(async (refs: string[], options: RunOptions, command: Command) => {
      if (options.dryRun === options.apply) {
        throw new CliError('give exactly one of --dry-run and --apply', exitCodes.usage);
      }
      if (options.security && options.packages) {
        throw new CliError('give --security or --packages, not both', exitCodes.usage);
      }
      const { client } = ctx.connect(command);
      const targets: string[] = [];
      for (const ref of refs) targets.push((await resolveAsset(client, ref)).id);
      if (targets.length === 0 && !options.group) {
        throw new CliError('give assets or --group', exitCodes.usage);
      }
      const packages = options.packages
        ?.split(',')
        .map((p) => p.trim())
        .filter((p) => p.length > 0);
      const body: UpdateRunCreate = {
        ...(targets.length > 0 ? { targets } : { group: options.group ?? '' }),
        mode: options.apply ? 'apply' : 'dry_run',
        selection: packages ? 'named' : options.security ? 'security' : 'all',
        ...(packages ? { packages } : {}),
        ...(options.reboot ? { reboot_if_required: true } : {}),
        ...(options.concurrency
          ? {
              concurrency: parseInteger(
                options.concurrency,
                '--concurrency',
                1,
                updateRunLimits.maxConcurrency,
              ),
            }
          : {}),
        ...(options.maxFailures
          ? {
              max_failures: parseInteger(
                options.maxFailures,
                '--max-failures',
                1,
                updateRunLimits.maxFailures,
              ),
            }
          : {}),
        ...(options.timeout
          ? {
              timeout_minutes: parseInteger(
                options.timeout,
                '--timeout',
                1,
                updateRunLimits.maxTimeoutMinutes,
              ),
            }
          : {}),
        ...(options.at ? { start: 'at' as const, scheduled_at: options.at } : {}),
        ...(options.nextWindow ? { start: 'next_window' as const } : {}),
      };
      const run = (await client.call('updates.runs.create', { body })).data;
      if (!options.wait) {
        if (ctx.globals(command).json) ctx.json(run);
        else ctx.out(runsTable([run]));
        return;
      }
      // Followed by reading the run every 2 s until it ends (the event feed carries the same results).
      let detail: UpdateRunDetail;
      for (;;) {
        detail = (await client.call('updates.runs.get', { params: { id: run.id } })).data;
        if (ended.has(detail.status)) break;
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
      if (ctx.globals(command).json) ctx.json(detail);
      else {
        ctx.out(runsTable([detail]));
        ctx.out(resultsTable(detail));
      }
      if (detail.counts.failed > 0 || detail.status === 'failed') process.exitCode = exitCodes.targetFailed;
    });

  updates
    .command('runs')
    .description('update runs, newest first')
    .action(async (_options: unknown, command: Command) => {
      const { client } = ctx.connect(command);
      const answer = await client.call('updates.runs.list', {
        query: { page: 1, per_page: paginationLimits.maxPerPage },
      });
      if (ctx.globals(command).json) ctx.json(answer.data);
      else if (answer.data.length === 0) ctx.note('no update runs');
      else ctx.out(runsTable(answer.data));
    });

  updates
    .command('run-show')
    .description("one update run with each target's result")
    .argument('<id>', 'the run id')
    .action(async (id: string, _options: unknown, command: Command) => {
      const { client } = ctx.connect(command);
      const detail = (await client.call('updates.runs.get', { params: { id } })).data;
      if (ctx.globals(command).json) ctx.json(detail);
      else {
        ctx.out(runsTable([detail]));
        ctx.out(resultsTable(detail));
      }
    });

  updates
    .command('cancel')
    .description('cancel a scheduled or running update run')
    .argument('<id>', 'the run id')
    .action(async (id: string, _options: unknown, command: Command) => {
      const { client } = ctx.connect(command);
      const run = (await client.call('updates.runs.cancel', { params: { id } })).data;
      if (ctx.globals(command).json) ctx.json(run);
      else ctx.out(runsTable([run]));
    });
}
