/** `svc snippets ls|add|rm`: saved terminal snippets, personal or shared (docs/decisions/0091). */
import fs from 'node:fs';
import type { Command } from 'commander';
import { isId, paginationLimits, snippetScopes, type Snippet, type SnippetScope } from '@svc/protocol';
import type { SvcClient } from '@svc/sdk';
import type { Context } from '../context.js';
import { CliError, exitCodes } from '../exit-codes.js';
import { formatTable } from '../format.js';

/** At most the per-owner limit of personal ones plus the shared ones of a large team. */
const maxListed = 10_000;

async function listSnippets(client: SvcClient, scope: SnippetScope | undefined): Promise<Snippet[]> {
  const snippets: Snippet[] = [];
  for (let page = 1; snippets.length < maxListed; page++) {
    const answer = await client.call('snippets.list', {
      query: { page, per_page: paginationLimits.maxPerPage, ...(scope ? { scope } : {}) },
    });
    snippets.push(...answer.data);
    if (answer.data.length === 0 || page * answer.meta.per_page >= answer.meta.total) break;
  }
  return snippets;
}

/** A snippet by id, or by name when exactly one the caller sees has it. */
async function resolveSnippetId(client: SvcClient, ref: string): Promise<string> {
  if (isId(ref, 'snippet')) return ref;
  const matches = (await listSnippets(client, undefined)).filter((s) => s.name === ref);
  if (matches.length === 1 && matches[0]) return matches[0].id;
  if (matches.length > 1) {
    throw new CliError(
      `${String(matches.length)} snippets are named "${ref}"`,
      exitCodes.usage,
      `give one by id: ${matches.map((s) => s.id).join(', ')}`,
    );
  }
  throw new CliError(`no snippet "${ref}"`, exitCodes.notFound, '`svc snippets ls` lists them');
}

/** The text of `add`: --text, or a file (`-` is standard input). */
function textOf(options: { text?: string; file?: string }): string {
  if ((options.text === undefined) === (options.file === undefined))
    throw new CliError('give --text or --file', exitCodes.usage);
  if (options.text !== undefined) return options.text;
  return fs.readFileSync(options.file === '-' ? 0 : (options.file ?? ''), 'utf8');
}

export function registerSnippets(program: Command, ctx: Context): void {
  const snippets = program.command('snippets').description('saved terminal snippets, personal or shared');

  snippets
    .command('ls')
    .alias('list')
    .description('list your snippets and the shared ones')
    .option('--scope <scope>', 'only personal or only shared ones')
    .action(async (options: { scope?: string }, command: Command) => {
      const scope = options.scope;
      if (scope !== undefined && !snippetScopes.includes(scope as SnippetScope))
        throw new CliError(`--scope is personal or shared, not "${scope}"`, exitCodes.usage);
      const { client } = ctx.connect(command);
      const listed = await listSnippets(client, scope as SnippetScope | undefined);
      if (ctx.globals(command).json) ctx.json(listed);
      else if (listed.length === 0) ctx.note('no snippets');
      else
        ctx.out(
          formatTable(
            ['NAME', 'SCOPE', 'TEXT', 'ID'],
            listed.map((s) => [
              s.name,
              s.scope,
              s.text.length > 60 ? `${s.text.slice(0, 57)}...` : s.text,
              s.id,
            ]),
          ),
        );
    });

  snippets
    .command('add')
    .alias('create')
    .description('save a snippet (personal unless --shared)')
    .requiredOption('--name <name>', 'its name')
    .option('--text <text>', 'its text')
    .option('--file <file>', 'its text from a file (- reads standard input)')
    .option('--description <text>', 'what it is for')
    .option('--shared', 'seen by everyone who may open terminals')
    .action(
      async (
        options: { name: string; text?: string; file?: string; description?: string; shared?: boolean },
        command: Command,
      ) => {
        const text = textOf(options);
        const { client } = ctx.connect(command);
        const created = (
          await client.call('snippets.create', {
            body: {
              name: options.name,
              text,
              scope: options.shared ? 'shared' : 'personal',
              ...(options.description !== undefined ? { description: options.description } : {}),
            },
          })
        ).data;
        if (ctx.globals(command).json) ctx.json(created);
        else ctx.note(`saved ${created.name} (${created.id}, ${created.scope})`);
      },
    );

  snippets
    .command('rm')
    .alias('delete')
    .description('delete a snippet (yours, or a shared one as an admin)')
    .argument('<snippet>', 'id, or name')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const { client } = ctx.connect(command);
      const id = await resolveSnippetId(client, ref);
      const removed = (await client.call('snippets.delete', { params: { id } })).data;
      if (ctx.globals(command).json) ctx.json(removed);
      else ctx.note(`deleted ${removed.name} (${removed.id})`);
    });
}
