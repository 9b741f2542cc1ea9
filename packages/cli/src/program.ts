/**
 * The `svc` command line. `runCli` takes its streams, environment and interrupt signal as arguments and
 * returns the exit code (docs/decisions/0036-cli-exit-codes.md), so tests drive it without a process.
 */
import { Command, CommanderError } from 'commander';
import { splitCommand } from './args.js';
import { registerAssets } from './commands/assets.js';
import { registerChecks } from './commands/checks.js';
import { registerEvents } from './commands/events.js';
import { registerExec } from './commands/exec.js';
import { registerFiles } from './commands/files.js';
import { registerIncidents } from './commands/incidents.js';
import { registerInventory } from './commands/inventory.js';
import { registerKeys } from './commands/keys.js';
import { registerUsers } from './commands/users.js';
import { registerLogin } from './commands/login.js';
import { registerMcp } from './commands/mcp.js';
import { registerMaintenance } from './commands/maintenance.js';
import { registerSnippets } from './commands/snippets.js';
import { registerUpdates } from './commands/updates.js';
import { completionScript } from './completion.js';
import { createContext, type CliIo } from './context.js';
import { describeFailure, exitCodes, type ExitCode } from './exit-codes.js';
import { cliVersion } from './version.js';

export type { CliIo } from './context.js';

/** The program with every command, bound to `io`; `commandWords` is the command after `exec … --`. */
function buildProgram(io: CliIo, commandWords: string[] | null = null) {
  const ctx = createContext(io);
  const program = new Command('svc');
  program
    .description(
      'svc hub from the shell: assets, commands, files, incidents, keys, maintenance, package updates, service checks, terminal snippets, the live feed and an Ansible inventory',
    )
    .version(cliVersion)
    .option('--hub <url>', 'the hub (default: $SVC_HUB_URL, or the one `svc login` saved)')
    .option('--ca <file>', "the hub's CA certificate (default: $SVC_CA_FILE, or the one pinned at login)")
    .option('--config <file>', 'config file (default: $SVC_CONFIG or $XDG_CONFIG_HOME/svc/config.json)')
    .option('--json', 'machine-readable output: one JSON document, or NDJSON for streams')
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });

  registerLogin(program, ctx);
  registerAssets(program, ctx);
  registerExec(program, ctx, () => commandWords);
  registerFiles(program, ctx);
  registerIncidents(program, ctx);
  registerKeys(program, ctx);
  registerUsers(program, ctx);
  registerEvents(program, ctx);
  registerInventory(program, ctx);
  registerMcp(program, ctx);
  registerMaintenance(program, ctx);
  registerUpdates(program, ctx);
  registerChecks(program, ctx);
  registerSnippets(program, ctx);
  program
    .command('completion')
    .description('print a shell completion script: eval "$(svc completion bash)"')
    .addArgument(program.createArgument('<shell>', 'bash or zsh').choices(['bash', 'zsh']))
    .action((shell: 'bash' | 'zsh') => {
      io.stdout.write(completionScript(shell, program));
    });
  return { program, ctx };
}

export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  const { cliArgs, commandWords } = splitCommand(argv);
  const { program, ctx } = buildProgram(io, commandWords);
  try {
    await program.parseAsync(cliArgs, { from: 'user' });
    return ctx.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version end with 0; anything commander refused (an unknown option, a missing argument) is usage.
      return error.exitCode === 0 ? exitCodes.ok : exitCodes.usage;
    }
    if (io.interrupt.aborted) {
      ctx.note('svc: stopped (commands already sent to agents run to their end)');
      return exitCodes.interrupted;
    }
    const failure = describeFailure(error, ctx.hubUrlHint());
    if (cliArgs.includes('--json')) {
      // Scripts reading --json get the failure as JSON too, on stderr: stdout keeps only results.
      io.stderr.write(
        `${JSON.stringify({
          error: {
            message: failure.message,
            hint: failure.hint,
            exit_code: failure.exitCode,
            ...(failure.hubError
              ? { hub_error: failure.hubError.code, request_id: failure.hubError.requestId }
              : {}),
          },
        })}\n`,
      );
      return failure.exitCode;
    }
    ctx.note(`svc: ${failure.message}`);
    if (failure.hint) ctx.note(`  hint: ${failure.hint}`);
    return failure.exitCode;
  }
}
