/**
 * `svc-agent run`: the daemon as the service starts it. The entry (main.ts) runs the plain form
 * `run [--config <path>] [--log-level <level>]` here without loading the command-line parser (commander),
 * which an idle agent would otherwise hold for its lifetime (decision 0067); anything else goes to
 * program.ts, whose `run` calls the same function.
 */
import type { Writable } from 'node:stream';
import { settingsPathFrom } from '../config/settings-file.js';
import { createLogger, parseLogLevel } from '../logger.js';

export interface RunOptions {
  config?: string;
  logLevel?: string;
}

export async function runAgentDaemon(
  options: RunOptions,
  io: { stderr: Writable; env: Readonly<Record<string, string | undefined>>; platform: NodeJS.Platform },
): Promise<void> {
  const logger = createLogger(
    parseLogLevel(options.logLevel ?? io.env.SVC_AGENT_LOG_LEVEL ?? 'info'),
    (line) => io.stderr.write(line),
  );
  const { runDaemon } = await import('../main.js');
  await runDaemon({
    configPath: settingsPathFrom(options.config, io.env),
    env: io.env,
    nodePlatform: io.platform,
    logger,
  });
}

/**
 * The options of a plain `run [--config <path>] [--log-level <level>]` (each at most once, as `--opt value` or
 * `--opt=value`, values not empty); null for any other command line, which the full parser then handles
 * (help, errors, other commands).
 */
export function plainRunOptions(argv: readonly string[]): RunOptions | null {
  if (argv[0] !== 'run') return null;
  const options: RunOptions = {};
  for (let i = 1; i < argv.length; i++) {
    const match = /^--(config|log-level)(?:=(.*))?$/s.exec(argv[i] ?? '');
    if (!match) return null;
    const inline = match[2];
    const value = inline ?? argv[++i];
    if (value === undefined || value === '' || (inline === undefined && value.startsWith('-'))) return null;
    const key = match[1] === 'config' ? 'config' : 'logLevel';
    if (options[key] !== undefined) return null;
    options[key] = value;
  }
  return options;
}
