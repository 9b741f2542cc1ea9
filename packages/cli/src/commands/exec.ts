/**
 * `svc exec <target…> [--group g] -- <command>`: one command on many assets through the hub's NDJSON fan-out,
 * each target's result printed as it arrives, a progress line on stderr while it runs (terminals only), and
 * exit code 1 when any target did not end with 0.
 */
import type { Command } from 'commander';
import { execLimits, paginationLimits, type ExecResult } from '@svc/protocol';
import { joinCommand, parseInteger } from '../args.js';
import type { Context } from '../context.js';
import { CliError, exitCodes } from '../exit-codes.js';
import { formatProgress, formatResultHeader, formatStream, formatSummary, isSuccess } from '../format.js';
import { resolveAssetIds, resolveGroup } from '../resolve.js';
import type { SvcClient } from '@svc/sdk';

/** Member pages read to name a group's results; past them results show the asset id. */
const maxNamePages = 20;

interface ExecOptions {
  group?: string;
  timeout?: string;
}

/** The names of a group's members (as far as this key sees them), for the result headers. */
async function memberNames(client: SvcClient, groupId: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (let page = 1; page <= maxNamePages; page++) {
    const answer = await client.call('assets.list', {
      query: { group: groupId, page, per_page: paginationLimits.maxPerPage },
    });
    for (const asset of answer.data) names.set(asset.id, asset.name);
    if (answer.data.length === 0 || page * answer.meta.per_page >= answer.meta.total) break;
  }
  return names;
}

/** Redraws one line on a terminal's stderr; cleared before anything else is written. */
function progressLine(ctx: Context, enabled: boolean) {
  let shown = false;
  return {
    show(text: string) {
      if (!enabled) return;
      ctx.io.stderr.write(`\r\u001b[K${text}`);
      shown = true;
    },
    clear() {
      if (!shown) return;
      ctx.io.stderr.write('\r\u001b[K');
      shown = false;
    },
  };
}

export function registerExec(program: Command, ctx: Context, commandWords: () => string[] | null): void {
  program
    .command('exec')
    .description('run a command on assets or a group: svc exec <asset…> [--group <g>] -- <command>')
    .argument('[targets...]', 'assets by name or id')
    .option('--group <group>', 'every member of this group (name or id)')
    .option('--timeout <seconds>', `per target, 1 to ${String(execLimits.maxTimeout)} (default 30)`)
    .action(async (targets: string[], options: ExecOptions, command: Command) => {
      const words = commandWords();
      if (words === null) {
        throw new CliError('no command: put it after --, as in `svc exec web-1 -- uptime`', exitCodes.usage);
      }
      const line = joinCommand(words);
      if (targets.length === 0 && !options.group) {
        throw new CliError('no targets: name assets, or give --group', exitCodes.usage);
      }
      const timeout = options.timeout
        ? parseInteger(options.timeout, '--timeout', 1, execLimits.maxTimeout)
        : undefined;
      // The stream is silent while the slowest target runs: the connection waits past the command's timeout.
      const idleTimeoutMs = ((timeout ?? execLimits.defaultTimeout) + 60) * 1000;
      const { client } = ctx.connect(command, { idleTimeoutMs });
      const json = ctx.globals(command).json === true;

      const names = targets.length > 0 ? await resolveAssetIds(client, targets) : new Map<string, string>();
      const targetIds = [...names.keys()];
      let total: number | null = targetIds.length;
      let groupId: string | undefined;
      if (options.group) {
        const group = await resolveGroup(client, options.group);
        groupId = group.id;
        total = targets.length > 0 ? null : group.asset_ids.length;
        if (!json) for (const [id, name] of await memberNames(client, group.id)) names.set(id, name);
      }

      const progress = progressLine(ctx, ctx.io.stderrIsTty && !json && (total === null || total > 1));
      let done = 0;
      let failed = 0;
      let nonZero = 0;
      const onResult = (result: ExecResult) => {
        done += 1;
        if (!isSuccess(result)) failed += 1;
        if (result.status === 'ok' && result.exit_code !== 0) nonZero += 1;
        if (json) {
          ctx.json(result);
          return;
        }
        progress.clear();
        ctx.out(formatResultHeader(result, names.get(result.asset_id) ?? result.asset_id));
        ctx.io.stdout.write(formatStream(result.stdout));
        ctx.io.stderr.write(formatStream(result.stderr));
        progress.show(formatProgress(done, total, failed));
      };
      progress.show(formatProgress(0, total, 0));
      let summary;
      try {
        summary = await client.execStream(
          {
            command: line,
            ...(targetIds.length > 0 ? { targets: targetIds } : {}),
            ...(groupId ? { group: groupId } : {}),
            ...(timeout ? { timeout } : {}),
          },
          { onResult, signal: ctx.io.interrupt },
        );
      } finally {
        progress.clear();
      }
      if (json) ctx.json({ summary });
      else ctx.note(formatSummary(summary, nonZero));
      ctx.exitWith(failed > 0 ? exitCodes.targetFailed : exitCodes.ok);
    });
}
