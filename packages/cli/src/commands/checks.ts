/** `svc checks ls|add|run|rm`: service checks (HTTP(S), TCP, ping), from the hub or an agent, and their outcome. */
import { Option, type Command } from 'commander';
import { checkKinds, checkLimits, isId, paginationLimits, type ServiceCheck } from '@svc/protocol';
import type { SvcClient } from '@svc/sdk';
import { parseInteger } from '../args.js';
import type { Context } from '../context.js';
import { CliError, exitCodes } from '../exit-codes.js';
import { formatTable, formatTime } from '../format.js';
import { resolveAsset } from '../resolve.js';

const maxListed = 10_000;

interface AddOptions {
  kind: (typeof checkKinds)[number];
  name?: string;
  asset?: string;
  fromAgent?: string;
  interval?: string;
  timeout?: string;
  expectStatus?: string;
  expectBody?: string;
  insecure?: boolean;
}

async function listChecks(client: SvcClient, asset: string | undefined): Promise<ServiceCheck[]> {
  const found: ServiceCheck[] = [];
  for (let page = 1; found.length < maxListed; page++) {
    const answer = await client.call('checks.list', {
      query: { page, per_page: paginationLimits.maxPerPage, ...(asset ? { asset } : {}) },
    });
    found.push(...answer.data);
    if (answer.data.length === 0 || page * answer.meta.per_page >= answer.meta.total) break;
  }
  return found;
}

/** A check by id, or by name when exactly one check has it. */
async function resolveCheckId(client: SvcClient, ref: string): Promise<string> {
  if (isId(ref, 'serviceCheck')) return ref;
  const matches = (await listChecks(client, undefined)).filter((c) => c.name === ref);
  if (matches.length === 1 && matches[0]) return matches[0].id;
  if (matches.length > 1) {
    throw new CliError(
      `${String(matches.length)} checks are named "${ref}"`,
      exitCodes.usage,
      `give one by id: ${matches.map((c) => c.id).join(', ')}`,
    );
  }
  throw new CliError(`no check "${ref}"`, exitCodes.notFound, '`svc checks ls` lists the checks');
}

const percent = (share: number | null) => (share === null ? '-' : `${(share * 100).toFixed(2)}%`);

function formatCheckTable(checks: readonly ServiceCheck[]): string {
  return formatTable(
    ['ID', 'NAME', 'KIND', 'STATUS', 'UPTIME 24H', 'LATENCY', 'CERT EXPIRES', 'FROM', 'TARGET'],
    checks.map((c) => [
      c.id,
      c.name,
      c.kind,
      c.enabled ? c.status : 'paused',
      percent(c.uptime_24h),
      c.last_latency_ms === null ? '-' : `${String(c.last_latency_ms)} ms`,
      `${formatTime(c.cert_expires_at)}${c.cert_expiring ? ' (soon)' : ''}`,
      c.run_from_asset_id ?? 'hub',
      c.target,
    ]),
  );
}

function parseStatuses(text: string): number[] {
  const codes = text.split(',').map((part) => parseInteger(part.trim(), '--expect-status', 100, 599));
  return [...new Set(codes)];
}

export function registerChecks(program: Command, ctx: Context): void {
  const checks = program.command('checks').description('service checks: HTTP(S), TCP and ping');

  checks
    .command('ls')
    .alias('list')
    .description('list checks with status, uptime and certificate expiry')
    .option('--asset <asset>', 'only the checks of this asset (name or id)')
    .action(async (options: { asset?: string }, command: Command) => {
      const { client } = ctx.connect(command);
      const asset = options.asset ? (await resolveAsset(client, options.asset)).id : undefined;
      const listed = await listChecks(client, asset);
      if (ctx.globals(command).json) ctx.json(listed);
      else if (listed.length === 0) ctx.note('no checks');
      else ctx.out(formatCheckTable(listed));
    });

  checks
    .command('add')
    .description('add a check: a URL (http), host:port (tcp) or a host (ping)')
    .argument('<target>', 'what to check')
    .addOption(new Option('--kind <kind>', 'the probe').choices(checkKinds).default('http'))
    .option('--name <name>', 'its name (default: the target)')
    .option('--asset <asset>', 'the asset the service runs on (name or id)')
    .option(
      '--from-agent <asset>',
      "run it from this asset's agent, on its network (name or id; needs assets:exec there)",
    )
    .option('--interval <seconds>', 'seconds between runs')
    .option('--timeout <seconds>', 'seconds a run may take')
    .option('--expect-status <codes>', 'comma-separated statuses that count as up (http)')
    .option('--expect-body <text>', 'text the answer must contain (http)')
    .option('--insecure', 'do not require a trusted certificate (https; its expiry is still read)')
    .action(async (target: string, options: AddOptions, command: Command) => {
      const { client } = ctx.connect(command);
      const asset = options.asset ? (await resolveAsset(client, options.asset)).id : undefined;
      const runFrom = options.fromAgent ? (await resolveAsset(client, options.fromAgent)).id : undefined;
      const created = (
        await client.call('checks.create', {
          body: {
            name: (options.name ?? target).slice(0, 120),
            kind: options.kind,
            target,
            ...(asset ? { asset_id: asset } : {}),
            ...(runFrom ? { run_from_asset_id: runFrom } : {}),
            ...(options.interval
              ? {
                  interval_seconds: parseInteger(
                    options.interval,
                    '--interval',
                    checkLimits.minIntervalSeconds,
                    checkLimits.maxIntervalSeconds,
                  ),
                }
              : {}),
            ...(options.timeout
              ? {
                  timeout_seconds: parseInteger(
                    options.timeout,
                    '--timeout',
                    1,
                    checkLimits.maxTimeoutSeconds,
                  ),
                }
              : {}),
            ...(options.expectStatus ? { expected_status: parseStatuses(options.expectStatus) } : {}),
            ...(options.expectBody ? { expected_body: options.expectBody } : {}),
            ...(options.insecure ? { tls_verify: false } : {}),
          },
        })
      ).data;
      if (ctx.globals(command).json) ctx.json(created);
      else ctx.out(formatCheckTable([created]));
    });

  checks
    .command('run')
    .description('run a check now and print its result')
    .argument('<check>', 'name or id')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const { client } = ctx.connect(command);
      const id = await resolveCheckId(client, ref);
      const result = (await client.call('checks.run', { params: { id } })).data;
      if (ctx.globals(command).json) ctx.json(result);
      else {
        const latency = result.latency_ms === null ? '' : ` in ${String(result.latency_ms)} ms`;
        const status = result.status_code === null ? '' : ` (${String(result.status_code)})`;
        const outcome = !result.ran ? 'unknown' : result.ok ? 'up' : 'down';
        ctx.out(`${outcome}${status}${latency}${result.error ? `: ${result.error}` : ''}`);
      }
      if (!result.ok) ctx.exitWith(exitCodes.targetFailed);
    });

  checks
    .command('rm')
    .alias('remove')
    .description('remove a check and its history')
    .argument('<check>', 'name or id')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const { client } = ctx.connect(command);
      const id = await resolveCheckId(client, ref);
      const removed = (await client.call('checks.delete', { params: { id } })).data;
      if (ctx.globals(command).json) ctx.json(removed);
      else ctx.note(`removed ${removed.name} (${removed.id})`);
    });
}
