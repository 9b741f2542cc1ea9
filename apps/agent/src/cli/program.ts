/**
 * The `svc-agent` command line: run, enroll, settings show|set|unset|wizard|test docker, identity show,
 * update self. `runCli` takes its streams and environment as arguments so tests can drive it.
 */
import os from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { Command, CommanderError } from 'commander';
import { formatContainerEndpoint } from '../config/container-endpoint.js';
import {
  readSettingsFile,
  settingsPathFrom,
  updateSettingsFile,
  type SettingsFileContent,
} from '../config/settings-file.js';
import {
  describeSettings,
  parseSettingValue,
  resolveSettings,
  settableKeys,
  type ResolvedSettings,
} from '../config/settings.js';
import { platformName } from '../platform/platform.js';
import { agentVersion } from '../version.js';
import { runAgentDaemon } from './daemon.js';
import type { UpdateOptions } from './update.js';

export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  /** Test seams for `update self`. */
  update?: Pick<UpdateOptions, 'fetchText' | 'install'>;
}

class CliFailure extends Error {}

interface GlobalOptions {
  config?: string;
}

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const out = (text: string) => io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  const program = new Command('svc-agent');
  program
    .description('svc hub agent: connects this machine to the hub')
    .version(agentVersion)
    .option('--config <path>', 'settings file (default: $SVC_AGENT_CONFIG or /etc/svc-agent/settings.json)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });

  const configPath = (command: Command) =>
    settingsPathFrom(command.optsWithGlobals<GlobalOptions>().config, io.env);
  const load = async (
    command: Command,
  ): Promise<{ path: string; content: SettingsFileContent; resolved: ResolvedSettings }> => {
    const path = configPath(command);
    const file = await readSettingsFile(path);
    if (file.error) throw new CliFailure(file.error);
    const content =
      file.content && typeof file.content === 'object' && !Array.isArray(file.content)
        ? (file.content as SettingsFileContent)
        : {};
    return {
      path,
      content,
      resolved: resolveSettings({ env: io.env, file: file.content, platform: io.platform }),
    };
  };

  program
    .command('run')
    .description('run the agent (what the systemd service starts)')
    .option('--log-level <level>', 'debug, info, warn or error', io.env.SVC_AGENT_LOG_LEVEL ?? 'info')
    .action(async (options: { logLevel: string }, command: Command) => {
      await runAgentDaemon(
        { config: command.optsWithGlobals<GlobalOptions>().config, logLevel: options.logLevel },
        io,
      );
    });

  program
    .command('enroll')
    .description('enroll this machine with a hub using an enrollment token')
    .requiredOption('--hub <url>', 'hub URL, e.g. https://hub.example.net:8443')
    .requiredOption('--token <token>', 'enrollment token (sve_…) from an admin')
    .option('--ca-fingerprint <sha256>', "pin the hub's CA: its SHA-256 fingerprint")
    .option('--insecure-loopback', 'allow plain http:// to a hub on this machine (development)')
    .option('--hostname <name>', 'name to enroll under', os.hostname())
    .option('--no-power-actions', 'refuse reboot and shutdown requests (sets allow_power_actions=false)')
    .action(
      async (
        options: {
          hub: string;
          token: string;
          caFingerprint?: string;
          insecureLoopback?: boolean;
          hostname: string;
          powerActions: boolean;
        },
        command: Command,
      ) => {
        const path = configPath(command);
        const { enroll } = await import('./enroll.js');
        const outcome = await enroll({
          hubUrl: options.hub,
          token: options.token,
          caFingerprint: options.caFingerprint ?? null,
          insecureLoopback: options.insecureLoopback === true,
          hostname: options.hostname,
          platform: platformName(io.platform),
          configPath: path,
          ...(options.powerActions ? {} : { extraSettings: { allow_power_actions: false } }),
        });
        out(`enrolled as asset ${outcome.assetId} with ${outcome.hubUrl}`);
        out(
          outcome.caFingerprint
            ? `trusting the hub's CA ${outcome.caFingerprint}`
            : 'verifying the hub with the system CAs',
        );
        out(`settings saved to ${path}; start the agent with: svc-agent run --config ${path}`);
      },
    );

  const settings = program.command('settings').description('show and change agent settings');
  settings
    .command('show')
    .description('the settings the agent runs with, and where each comes from')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }, command: Command) => {
      const { path, resolved } = await load(command);
      const rows = describeSettings(resolved);
      if (options.json) {
        out(JSON.stringify({ file: path, settings: rows, warnings: resolved.warnings }, null, 2));
        return;
      }
      out(`settings file: ${path}`);
      const width = Math.max(...rows.map((r) => r.key.length));
      for (const row of rows) out(`${row.key.padEnd(width)}  ${row.value}  (${row.source})`);
      for (const warning of resolved.warnings) out(`warning: ${warning}`);
    });

  settings
    .command('set')
    .description(`set one setting in the file (${settableKeys.join(', ')})`)
    .argument('<key>')
    .argument('<value>')
    .action(async (key: string, value: string, _options: unknown, command: Command) => {
      const parsed = parseSettingValue(key, value);
      if (!parsed.ok) throw new CliFailure(parsed.message);
      const path = configPath(command);
      await updateSettingsFile(path, { [parsed.key]: parsed.stored });
      out(`${parsed.key} = ${String(parsed.stored)} in ${path}; restart the agent to apply`);
    });

  settings
    .command('unset')
    .description('remove a setting from the file (back to its default)')
    .argument('<key>')
    .action(async (key: string, _options: unknown, command: Command) => {
      if (!(settableKeys as string[]).includes(key))
        throw new CliFailure(`${key} cannot be unset by hand; settable: ${settableKeys.join(', ')}`);
      const path = configPath(command);
      await updateSettingsFile(path, { [key]: null });
      out(`${key} removed from ${path}; restart the agent to apply`);
    });

  settings
    .command('wizard')
    .description('answer a few questions; --yes takes the current values without asking')
    .option('-y, --yes', 'do not ask; keep current values')
    .action(async (options: { yes?: boolean }, command: Command) => {
      const { path, content, resolved } = await load(command);
      const { readlineAsk, runWizard } = await import('./wizard.js');
      const prompt = options.yes ? null : readlineAsk(io.stdin, io.stdout);
      try {
        const patch = await runWizard({
          resolved,
          fileContent: content,
          ask: prompt?.ask ?? null,
          write: (s) => io.stdout.write(s),
        });
        if (Object.keys(patch).length === 0) {
          out('nothing changed');
          return;
        }
        await updateSettingsFile(path, patch);
        out(`saved ${Object.keys(patch).join(', ')} to ${path}; restart the agent to apply`);
      } finally {
        prompt?.close();
      }
    });

  settings
    .command('test')
    .description('check a connection')
    .command('docker')
    .description('GET /_ping and /version on the configured container endpoint')
    .action(async (_options: unknown, command: Command) => {
      const { resolved } = await load(command);
      for (const warning of resolved.warnings.filter((w) => /docker_endpoint|SVC_CONTAINER_SOCKET/.test(w)))
        out(`warning: ${warning}`);
      const endpoint = resolved.settings.containerEndpoint;
      const { pingContainerEndpoint } = await import('./docker-test.js');
      const outcome = await pingContainerEndpoint(endpoint);
      if (!outcome.ok)
        throw new CliFailure(`container engine at ${formatContainerEndpoint(endpoint)}: ${outcome.reason}`);
      out(
        `OK: container engine at ${formatContainerEndpoint(endpoint)}: version ${outcome.engineVersion}, API ${outcome.apiVersion}`,
      );
    });

  program
    .command('identity')
    .description("this agent's identity")
    .command('show')
    .description('asset id, hub URL and CA fingerprint (never the credential)')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }, command: Command) => {
      const { path, resolved } = await load(command);
      const s = resolved.settings;
      const identity = {
        enrolled: Boolean(s.hubUrl && s.credential),
        asset_id: s.assetId,
        hub_url: s.hubUrl,
        ca_fingerprint_sha256: s.caFingerprint,
        settings_file: path,
        agent_version: agentVersion,
      };
      if (options.json) {
        out(JSON.stringify(identity, null, 2));
        return;
      }
      if (!identity.enrolled) out('not enrolled: run svc-agent enroll --hub <url> --token <sve_…>');
      out(`asset id:       ${s.assetId ?? '-'}`);
      out(`hub:            ${s.hubUrl ?? '-'}`);
      out(`CA fingerprint: ${s.caFingerprint ?? (s.hubUrl ? '(none saved: system CAs)' : '-')}`);
      out(`agent version:  ${agentVersion}`);
    });

  program
    .command('update')
    .description('update the agent')
    .command('self')
    .description('install the newest release from SVC_AGENT_UPDATE_URL')
    .option('--force', 'reinstall even when up to date')
    .action(async (options: { force?: boolean }) => {
      const { updateSelf } = await import('./update.js');
      const outcome = await updateSelf({
        updateUrl: io.env.SVC_AGENT_UPDATE_URL,
        force: options.force === true,
        currentVersion: agentVersion,
        ...io.update,
      });
      if (outcome.status === 'no_source' || outcome.status === 'error') throw new CliFailure(outcome.message);
      out(outcome.message);
    });

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    io.stderr.write(`svc-agent: ${(error as Error).message}\n`);
    return 1;
  }
}
