/**
 * The `svc-hub` command line: no command (or `serve`) runs the hub, as `npm start` always did; `backup`,
 * `restore`, `migrate` and `tls issue` are the operator's tools (docs/operations.md). Each reads the same environment as
 * the hub (SVC_DATA_DIR, SVC_DATABASE_URL, SVC_ENCRYPTION_KEY…), parsed once by the caller.
 *
 * Each command imports what it runs when it runs (the database drivers, tar, the CA): `svc-hub --version` or
 * `--help` loads commander and nothing else of weight, and the built hub splits each into a chunk of its own.
 */
import { Command, CommanderError } from 'commander';
import type { HubConfig } from '../config/env.js';
import { hubVersion } from '../platform/version.js';

export interface HubCliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /**
   * Reads the environment into the hub's config (main.ts: parseEnv with its error handling, imported when a
   * command needs it: the settings' schemas are not for `--version`).
   */
  config: () => HubConfig | Promise<HubConfig>;
  /** Runs the hub until it stops. */
  serve: (config: HubConfig) => Promise<void>;
}

/** Exit codes scripts can rely on: 0 done, 1 failed, 2 refused (usage, configuration, or a check said no). */
const exitCodes = { ok: 0, failed: 1, refused: 2 } as const;

/**
 * Whether `error` is one of the refusals an operator can act on (exit 2, the message alone). Their modules are
 * loaded already when one of them threw; they are imported here so that a command that never touches them
 * does not load them.
 */
async function isRefusal(error: unknown): Promise<boolean> {
  if (!(error instanceof Error)) return false;
  const [backup, certificates, secretBox, database, lock] = await Promise.all([
    import('./backup.js'),
    import('../platform/tls/certificates.js'),
    import('../platform/secret-box.js'),
    import('../platform/db/database.js'),
    import('../platform/data-dir-lock.js'),
  ]);
  return (
    error instanceof backup.OperationRefused ||
    error instanceof certificates.CertificateProblem ||
    error instanceof secretBox.SecretBoxError ||
    error instanceof database.DatabaseNewerThanHub ||
    error instanceof lock.DataDirLocked
  );
}

async function migrateCommand(io: HubCliIo, dryRun: boolean): Promise<number> {
  const [{ DatabaseNewerThanHub, openDatabase, planMigrations }, { lockDataDir }] = await Promise.all([
    import('../platform/db/database.js'),
    import('../platform/data-dir-lock.js'),
  ]);
  const config = await io.config();
  const options = { databaseUrl: config.databaseUrl, dataDir: config.dataDir };
  const plan = await planMigrations(options);
  if (plan.unknown.length > 0) throw new DatabaseNewerThanHub(plan.unknown);
  if (plan.pending.length === 0) {
    io.stdout.write(`The database is up to date (hub ${hubVersion}); nothing to run.\n`);
    return exitCodes.ok;
  }
  io.stdout.write(
    `${dryRun ? 'Would run' : 'Running'} ${plan.pending.length} migration(s), in order, in one transaction:\n`,
  );
  for (const name of plan.pending) io.stdout.write(`  ${name}\n`);
  if (dryRun) return exitCodes.ok;
  // The hub must not run on the directory meanwhile: the lock refuses a second process.
  const lock = lockDataDir(config.dataDir);
  try {
    const database = await openDatabase(options);
    await database.close();
  } finally {
    lock.release();
  }
  io.stdout.write('Done.\n');
  return exitCodes.ok;
}

export async function runHubCli(argv: readonly string[], io: HubCliIo): Promise<number> {
  let code: number = exitCodes.ok;
  const program = new Command('svc-hub')
    .description('svc hub: runs the hub, or backs it up, restores it, and migrates its database')
    .version(hubVersion)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
  program.action(async () => {
    await io.serve(await io.config());
  });
  program
    .command('serve')
    .description('run the hub (the default)')
    .action(async () => {
      await io.serve(await io.config());
    });
  program
    .command('backup')
    .description('write a consistent copy of the hub (database, TLS, sealed keys) to <file>, while it runs')
    .argument('<file>', 'the archive to write (a new file, made 0600)')
    .option(
      '--include-key',
      'put the hub key (encryption.key) in the archive too: whoever holds it reads every secret',
    )
    .option('--pg-dump <path>', 'the pg_dump binary (PostgreSQL hubs)', 'pg_dump')
    .action(async (file: string, options: { includeKey?: boolean; pgDump: string }) => {
      const { createBackup } = await import('./backup.js');
      const result = await createBackup(await io.config(), file, {
        includeKey: options.includeKey === true,
        pgDump: options.pgDump,
      });
      io.stdout.write(`Backup written: ${result.file} (${result.database})\n`);
      io.stdout.write(
        result.keyIncluded
          ? `The hub key is IN this backup: keep the file as secret as the key itself.\n`
          : `The hub key is NOT in this backup. It is ${result.keyLocation}: keep a copy apart from the backup ` +
              '(a password manager, another medium). Without it, a restored hub cannot read connector credentials, ' +
              'webhook secrets or TOTP seeds; restore with --key-file.\n',
      );
    });
  program
    .command('restore')
    .description('restore <file> into an empty data directory (SVC_DATA_DIR)')
    .argument('<file>', 'an archive written by svc-hub backup')
    .option('--key-file <file>', 'the hub key kept apart from the backup (64 hexadecimal characters)')
    .option('--pg-restore <path>', 'the pg_restore binary (PostgreSQL hubs)', 'pg_restore')
    .action(async (file: string, options: { keyFile?: string; pgRestore: string }) => {
      const { restoreBackup } = await import('./backup.js');
      const config = await io.config();
      const result = await restoreBackup(config, file, {
        ...(options.keyFile ? { keyFile: options.keyFile } : {}),
        pgRestore: options.pgRestore,
      });
      io.stdout.write(
        `Restored a backup of ${result.createdAt} (hub ${result.hubVersion}, ${result.database}) into ${config.dataDir}; ` +
          `hub key from the ${result.key}. Start the hub on it; it migrates the database if this hub is newer.\n`,
      );
    });
  program
    .command('migrate')
    .description('bring the database schema up to date (forward-only); --dry-run lists what would run')
    .option('--dry-run', 'list the migrations that would run, and change nothing')
    .action(async (options: { dryRun?: boolean }) => {
      code = await migrateCommand(io, options.dryRun === true);
    });

  program
    .command('tls')
    .description("the built-in CA's certificates")
    .command('issue')
    .description(
      'issue a server certificate from the built-in CA into <file> (a load balancer in front of several hub ' +
        'processes: agents that pinned the CA trust it)',
    )
    .argument(
      '<file>',
      'the PEM file to write: the certificate, then its private key (a new file, made 0600)',
    )
    .requiredOption('--name <name...>', 'a DNS name or IP address the certificate is for (repeatable)')
    .action(async (file: string, options: { name: string[] }) => {
      const { issueCertificate } = await import('./tls-issue.js');
      const issued = await issueCertificate(await io.config(), file, options.name);
      io.stdout.write(
        `Certificate for ${issued.names.join(', ')} written to ${file} (certificate, then key), ` +
          `valid until ${issued.notAfter}: issue a new one before then.\n`,
      );
    });

  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? exitCodes.ok : exitCodes.refused;
    }
    if (await isRefusal(error)) {
      io.stderr.write(`svc-hub: ${(error as Error).message}\n`);
      return exitCodes.refused;
    }
    throw error;
  }
  return code;
}
