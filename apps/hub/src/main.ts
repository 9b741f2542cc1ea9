/**
 * The `svc-hub` entry (dist/main.js): the command line first; the hub itself (serve.ts) is imported only when
 * it is to run. The build splits it into its own chunks, so `svc-hub --version`, `backup` or `migrate` load
 * what they use and not the server (docs/decisions/0006-node-and-build.md).
 */
import type { HubConfig } from './config/env.js';
import { hubUmask } from './platform/data-dir.js';
import { runHubCli } from './ops/program.js';

function fail(message: string, code: number): never {
  process.stderr.write(`svc hub: ${message}\n`);
  process.exit(code);
}

/** The hub's config from the environment; a configuration error ends the process with its reason (exit 2). */
async function readConfig(): Promise<HubConfig> {
  const { ConfigError, parseEnv } = await import('./config/env.js');
  try {
    return parseEnv(process.env, process.cwd(), { stdoutIsTty: process.stdout.isTTY });
  } catch (error) {
    if (error instanceof ConfigError) fail(`configuration error: ${error.message}`, 2);
    throw error;
  }
}

async function main(): Promise<void> {
  // Everything the hub writes (database, keys, credentials) is private to its user, whatever the shell's umask.
  process.umask(hubUmask);
  const code = await runHubCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    config: readConfig,
    serve: async (config) => {
      const { serve } = await import('./serve.js');
      await serve(config);
    },
  });
  // `serve` returns once the hub listens; the process then lives on its servers until a signal.
  if (code !== 0) process.exit(code);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `svc hub failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
