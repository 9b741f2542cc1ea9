/** `svc keys create|ls|revoke` (admin keys): a new key is shown once, on stdout, and never again. */
import { Option, type Command } from 'commander';
import { assignableRoles, isId, paginationLimits, type ApiKey } from '@svc/protocol';
import type { SvcClient } from '@svc/sdk';
import { parseInteger, parseList } from '../args.js';
import type { Context } from '../context.js';
import { CliError, exitCodes } from '../exit-codes.js';
import { formatFields, formatKeyTable, formatTime } from '../format.js';
import { resolveAssetIds } from '../resolve.js';

const maxListed = 100_000;

interface CreateOptions {
  name: string;
  role: (typeof assignableRoles)[number];
  scopes: string;
  allowedAssets?: string;
  expires?: string;
}

async function listKeys(client: SvcClient, limit: number): Promise<ApiKey[]> {
  const keys: ApiKey[] = [];
  for (let page = 1; keys.length < limit; page++) {
    const answer = await client.call('keys.list', {
      query: { page, per_page: Math.min(paginationLimits.maxPerPage, limit) },
    });
    keys.push(...answer.data);
    if (answer.data.length === 0 || page * answer.meta.per_page >= answer.meta.total) break;
  }
  return keys.slice(0, limit);
}

/** A key by id, or by name when exactly one key has it. */
async function resolveKeyId(client: SvcClient, ref: string): Promise<string> {
  if (isId(ref, 'apiKey')) return ref;
  const matches = (await listKeys(client, maxListed)).filter((k) => k.name === ref);
  if (matches.length === 1 && matches[0]) return matches[0].id;
  if (matches.length > 1) {
    throw new CliError(
      `${String(matches.length)} keys are named "${ref}"`,
      exitCodes.usage,
      `give one by id: ${matches.map((k) => k.id).join(', ')}`,
    );
  }
  throw new CliError(`no key "${ref}"`, exitCodes.notFound, '`svc keys ls` lists the keys');
}

function parseExpiry(value: string): string {
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(time)) {
    throw new CliError(
      `--expires must be a date or time like 2027-01-31 or 2027-01-31T12:00:00Z, not "${value}"`,
      exitCodes.usage,
    );
  }
  return new Date(time).toISOString();
}

export function registerKeys(program: Command, ctx: Context): void {
  const keys = program.command('keys').description('API keys (an admin key is needed)');

  keys
    .command('create')
    .description('create a key; it is shown once')
    .requiredOption('--name <name>', 'what the key is for')
    .addOption(new Option('--role <role>', 'its role').choices(assignableRoles).makeOptionMandatory())
    .requiredOption('--scopes <list>', 'comma-separated scopes, * for all of the role')
    .option('--allowed-assets <list>', 'comma-separated assets (names or ids) it is limited to')
    .option('--expires <time>', 'when it stops working (ISO 8601)')
    .action(async (options: CreateOptions, command: Command) => {
      const scopes = parseList(options.scopes);
      if (scopes.length === 0) throw new CliError('--scopes names no scope', exitCodes.usage);
      const expiresAt = options.expires ? parseExpiry(options.expires) : undefined;
      const { client } = ctx.connect(command);
      const allowed = options.allowedAssets
        ? [...(await resolveAssetIds(client, parseList(options.allowedAssets))).keys()]
        : undefined;
      const created = (
        await client.call('keys.create', {
          body: {
            name: options.name,
            role: options.role,
            scopes,
            ...(allowed ? { allowed_assets: allowed } : {}),
            ...(expiresAt ? { expires_at: expiresAt } : {}),
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
          ['role', created.role],
          ['scopes', created.scopes.join(',')],
          ['expires', formatTime(created.expires_at)],
          ['key', created.raw_key],
        ]),
      );
      ctx.note('the key is shown this once: keep it now (the hub stores only its hash)');
    });

  keys
    .command('ls')
    .alias('list')
    .description('list keys (never their secret)')
    .option('--limit <n>', 'list at most this many', '1000')
    .action(async (options: { limit: string }, command: Command) => {
      const limit = parseInteger(options.limit, '--limit', 1, maxListed);
      const { client } = ctx.connect(command);
      const listed = await listKeys(client, limit);
      if (ctx.globals(command).json) ctx.json(listed);
      else if (listed.length === 0) ctx.note('no keys');
      else ctx.out(formatKeyTable(listed));
    });

  keys
    .command('revoke')
    .description('revoke a key: it stops working at once')
    .argument('<key>', 'id, or name')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const { client } = ctx.connect(command);
      const id = await resolveKeyId(client, ref);
      const revoked = (await client.call('keys.revoke', { params: { id } })).data;
      if (ctx.globals(command).json) ctx.json(revoked);
      else ctx.note(`revoked ${revoked.name} (${revoked.id})`);
    });
}
