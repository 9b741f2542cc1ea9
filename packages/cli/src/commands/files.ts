/**
 * `svc files get <asset> <path> [dest]` and `svc files put <asset> <src> <path>`: one file between this
 * machine and an asset, through its agent (at most agentLimits.fileBytes, 8 MiB). `-` is stdout or stdin.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { agentLimits } from '@svc/protocol';
import { encodeBase64 } from '@svc/sdk';
import type { Context } from '../context.js';
import { CliError, exitCodes } from '../exit-codes.js';
import { resolveAsset } from '../resolve.js';

const limitText = `${String(agentLimits.fileBytes / (1024 * 1024))} MiB`;

async function readAll(stream: NodeJS.ReadableStream, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const piece = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += piece.length;
    if (size > max)
      throw new CliError(`the input is over the hub's file limit of ${limitText}`, exitCodes.usage);
    chunks.push(piece);
  }
  return Buffer.concat(chunks);
}

function readLocal(src: string): Buffer {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(src);
  } catch (error) {
    throw new CliError(`cannot read ${src}: ${(error as Error).message}`, exitCodes.notFound);
  }
  if (!stat.isFile()) throw new CliError(`${src} is not a file`, exitCodes.usage);
  if (stat.size > agentLimits.fileBytes) {
    throw new CliError(
      `${src} is ${String(stat.size)} bytes, over the hub's file limit of ${limitText}`,
      exitCodes.usage,
    );
  }
  return fs.readFileSync(src);
}

export function registerFiles(program: Command, ctx: Context): void {
  const files = program.command('files').description(`one file to or from an asset (up to ${limitText})`);

  files
    .command('get')
    .description('download a file from an asset')
    .argument('<asset>', 'name or id')
    .argument('<path>', 'absolute path on the asset')
    .argument('[dest]', 'where to write it: a file, a directory, or - for stdout (default: its name, here)')
    .option('--force', 'replace dest if it exists')
    .action(
      async (
        ref: string,
        remote: string,
        dest: string | undefined,
        options: { force?: boolean },
        command: Command,
      ) => {
        const { client } = ctx.connect(command);
        const asset = await resolveAsset(client, ref);
        const download = await client.download('files.read', {
          params: { id: asset.id },
          query: { path: remote },
        });
        if (dest === '-') {
          ctx.io.stdout.write(download.bytes);
          return;
        }
        let target = dest ?? path.posix.basename(remote);
        if (fs.existsSync(target) && fs.statSync(target).isDirectory())
          target = path.join(target, path.posix.basename(remote));
        try {
          fs.writeFileSync(target, download.bytes, { flag: options.force ? 'w' : 'wx' });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
            throw new CliError(
              `${target} exists`,
              exitCodes.usage,
              'pass --force to replace it, or name another dest',
            );
          }
          throw new CliError(`cannot write ${target}: ${(error as Error).message}`, exitCodes.usage);
        }
        if (ctx.globals(command).json)
          ctx.json({ asset_id: asset.id, path: remote, dest: target, size: download.bytes.length });
        else ctx.note(`wrote ${String(download.bytes.length)} bytes to ${target}`);
      },
    );

  files
    .command('put')
    .description('upload a file to an asset')
    .argument('<asset>', 'name or id')
    .argument('<src>', 'local file, or - for stdin')
    .argument('<path>', 'absolute path on the asset')
    .option('--overwrite', 'replace the file on the asset if it exists')
    .action(
      async (
        ref: string,
        src: string,
        remote: string,
        options: { overwrite?: boolean },
        command: Command,
      ) => {
        const bytes = src === '-' ? await readAll(ctx.io.stdin, agentLimits.fileBytes) : readLocal(src);
        const { client } = ctx.connect(command);
        const asset = await resolveAsset(client, ref);
        const written = await client.call('files.write', {
          params: { id: asset.id },
          body: { path: remote, content_base64: encodeBase64(bytes), overwrite: options.overwrite === true },
        });
        if (ctx.globals(command).json) ctx.json({ asset_id: asset.id, ...written.data });
        else ctx.note(`wrote ${String(written.data.size)} bytes to ${asset.name}:${written.data.path}`);
      },
    );
}
