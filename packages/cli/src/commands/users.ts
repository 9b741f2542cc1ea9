/**
 * `svc users ls|disable|enable|delete` (an unrestricted admin key with `*`, decision 0087): a disabled user
 * cannot sign in and their keys and schedules stop until enabled; a delete removes their keys, sessions and
 * what they keep elsewhere (passkeys, push subscriptions, personal snippets, bookmarks, saved filters).
 */
import type { Command } from 'commander';
import { isId, paginationLimits, type User } from '@svc/protocol';
import type { SvcClient } from '@svc/sdk';
import type { Context } from '../context.js';
import { CliError, exitCodes } from '../exit-codes.js';
import { formatTable, formatTime } from '../format.js';

const maxListed = 10_000;

async function listUsers(client: SvcClient): Promise<User[]> {
  const users: User[] = [];
  for (let page = 1; users.length < maxListed; page++) {
    const answer = await client.call('users.list', {
      query: { page, per_page: paginationLimits.maxPerPage },
    });
    users.push(...answer.data);
    if (answer.data.length === 0 || page * answer.meta.per_page >= answer.meta.total) break;
  }
  return users;
}

/** A user by id, or by username (usernames are unique, lower case). */
async function resolveUserId(client: SvcClient, ref: string): Promise<string> {
  if (isId(ref, 'user')) return ref;
  const name = ref.toLowerCase();
  const found = (await listUsers(client)).find((u) => u.username === name);
  if (found) return found.id;
  throw new CliError(`no user "${ref}"`, exitCodes.notFound, '`svc users ls` lists the users');
}

function formatUserTable(users: readonly User[]): string {
  return formatTable(
    ['USERNAME', 'ROLE', 'STATUS', 'CREATED', 'ID'],
    users.map((u) => [
      u.username,
      u.role,
      u.disabled_at === null ? 'enabled' : `disabled ${formatTime(u.disabled_at)}`,
      formatTime(u.created_at),
      u.id,
    ]),
  );
}

export function registerUsers(program: Command, ctx: Context): void {
  const users = program.command('users').description('console users (an unrestricted admin key is needed)');

  users
    .command('ls')
    .alias('list')
    .description('list users, disabled ones marked')
    .action(async (_options: unknown, command: Command) => {
      const { client } = ctx.connect(command);
      const listed = await listUsers(client);
      if (ctx.globals(command).json) ctx.json(listed);
      else ctx.out(formatUserTable(listed));
    });

  users
    .command('disable')
    .description('disable a user: no sign-in, sessions end, their keys and schedules stop until enabled')
    .argument('<user>', 'username or id')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const { client } = ctx.connect(command);
      const id = await resolveUserId(client, ref);
      const user = (await client.call('users.disable', { params: { id } })).data;
      if (ctx.globals(command).json) ctx.json(user);
      else ctx.note(`disabled ${user.username} (${user.id}): sessions ended, keys refused until enabled`);
    });

  users
    .command('enable')
    .description('enable a disabled user: sign-in, their keys and schedules work again')
    .argument('<user>', 'username or id')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const { client } = ctx.connect(command);
      const id = await resolveUserId(client, ref);
      const user = (await client.call('users.enable', { params: { id } })).data;
      if (ctx.globals(command).json) ctx.json(user);
      else ctx.note(`enabled ${user.username} (${user.id})`);
    });

  users
    .command('delete')
    .alias('rm')
    .description(
      'delete a user with their sessions, API keys, passkeys, push subscriptions, personal snippets, bookmarks and saved filters (the audit trail keeps their name)',
    )
    .argument('<user>', 'username or id')
    .option(
      '--reassign-to <user>',
      'the operator or admin their schedules run as and who owns their shared snippets from now on (username or id)',
    )
    .action(async (ref: string, options: { reassignTo?: string }, command: Command) => {
      const { client } = ctx.connect(command);
      const id = await resolveUserId(client, ref);
      const heir = options.reassignTo ? await resolveUserId(client, options.reassignTo) : undefined;
      const user = (
        await client.call('users.delete', {
          params: { id },
          ...(heir ? { query: { reassign_to: heir } } : {}),
        })
      ).data;
      if (ctx.globals(command).json) ctx.json(user);
      else ctx.note(`deleted ${user.username} (${user.id}) with their sessions, keys and personal data`);
    });
}
