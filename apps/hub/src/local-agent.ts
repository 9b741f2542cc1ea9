/**
 * `npm start` runs an agent for this machine beside the hub, so a newcomer has a machine to manage at once.
 * The hub enrolls it through its own enrollment service (no token to copy), writes its settings (0600, in
 * `<data>/local-agent/`) with power actions switched off — trying the product must never reboot the machine —
 * and runs the real svc-agent as a child process, restarting it if it exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HubConfig } from './config/env.js';
import type { Hub } from './hub.js';
import { localAgentSettingsFile } from './platform/data-dir.js';
import type { Logger } from './platform/logger.js';
import { systemOwnerContext } from './access/principal.js';

const agentLauncher = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'agent',
  'bin',
  'svc-agent.js',
);

interface LocalAgentSettings {
  hub_url: string;
  asset_id: string;
  credential: string;
  ca_pem?: string;
  ca_fingerprint_sha256?: string;
  allow_power_actions: false;
  /** What this agent never touches through files or logs: the hub's data (security rule 10). */
  protected_paths: string[];
  /** Processes whose /proc entries it never touches: the hub's (its environment holds the hub's secrets). */
  protected_pids: number[];
}

/** Variables the agent needs from the hub's environment; anything else (SVC_ENCRYPTION_KEY…) stays behind. */
const passedEnvironment = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR'];

function agentEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of passedEnvironment) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('SVC_AGENT_') && value !== undefined) env[name] = value;
  }
  env.SVC_AGENT_ALLOW_POWER_ACTIONS = 'false';
  return env;
}

function readSettings(file: string): LocalAgentSettings | null {
  try {
    const value = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LocalAgentSettings>;
    return typeof value.asset_id === 'string' && typeof value.credential === 'string'
      ? (value as LocalAgentSettings)
      : null;
  } catch {
    return null;
  }
}

async function ensureEnrolled(
  hub: Hub,
  file: string,
  hubUrl: string,
  guarded: Pick<LocalAgentSettings, 'protected_paths' | 'protected_pids'>,
): Promise<string> {
  const existing = readSettings(file);
  if (existing && (await hub.services.assets.findRow(existing.asset_id))) {
    // Same identity; the hub's address, CA or process may have changed since (ports, TLS mode, restart).
    const ca = hub.tls.caCertificate();
    const fingerprint = hub.tls.status().ca?.fingerprint_sha256;
    writeSettings(file, {
      ...existing,
      hub_url: hubUrl,
      ...(ca ? { ca_pem: ca } : {}),
      ...(ca && fingerprint ? { ca_fingerprint_sha256: fingerprint } : {}),
      ...guarded,
    });
    return existing.asset_id;
  }
  const ctx = systemOwnerContext();
  const token = await hub.services.enrollment.createToken(ctx, {
    name: 'local agent (npm start)',
    max_uses: 1,
    expires_in_hours: 1,
  });
  const enrolled = await hub.services.enrollment.enroll(ctx, {
    token: token.token,
    hostname: os.hostname().slice(0, 253) || 'localhost',
    platform: os.platform() === 'linux' ? 'linux' : 'other',
    agent_version: 'local',
  });
  writeSettings(file, {
    hub_url: hubUrl,
    asset_id: enrolled.asset_id,
    credential: enrolled.credential,
    ...(enrolled.ca_pem ? { ca_pem: enrolled.ca_pem } : {}),
    ...(enrolled.ca_fingerprint_sha256 ? { ca_fingerprint_sha256: enrolled.ca_fingerprint_sha256 } : {}),
    allow_power_actions: false,
    ...guarded,
  });
  return enrolled.asset_id;
}

function writeSettings(file: string, settings: LocalAgentSettings): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
}

/**
 * Where the hub keeps what must never be read through an agent: its data directory (database, keys, sessions)
 * and the directory of its CA's private key.
 */
function hubSecretPaths(config: Pick<HubConfig, 'dataDir' | 'tlsCaKeyDir'>): string[] {
  return [path.resolve(config.dataDir), path.resolve(config.tlsCaKeyDir)];
}

/**
 * Processes whose environment may hold the hub's secrets: the hub, and the one that started it (npm, a shell,
 * a supervisor), where the user's exported SVC_ENCRYPTION_KEY or OIDC secret also sits.
 */
function hubPids(): number[] {
  return process.ppid > 1 ? [process.pid, process.ppid] : [process.pid];
}

export interface LocalAgent {
  /**
   * Resolves once the agent has said it is connected and its output has then been quiet for a moment (so its
   * start-up lines are all in the log), or when `timeoutMs` has passed: true when it connected.
   */
  settled(timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

/** What svc-agent logs once the hub has welcomed it (apps/agent/src/channel/client.ts). */
const connectedLine = /\bconnected to the hub\b/;
/** How long the agent's output stays quiet before its start counts as settled. */
const settleQuietMs = 500;

/**
 * Enrolls this machine's agent, once, and writes its settings (`<data>/local-agent/settings.json`, with its
 * credential) for the hub at `hubUrl`; a later call keeps the identity and refreshes the rest.
 */
export async function enrollLocalAgent(
  hub: Hub,
  config: Pick<HubConfig, 'dataDir' | 'tlsCaKeyDir'>,
  hubUrl: string,
): Promise<{ file: string; assetId: string }> {
  const file = path.join(config.dataDir, localAgentSettingsFile);
  const assetId = await ensureEnrolled(hub, file, hubUrl, {
    protected_paths: hubSecretPaths(config),
    protected_pids: hubPids(),
  });
  return { file, assetId };
}

export async function startLocalAgent(
  hub: Hub,
  config: Pick<HubConfig, 'dataDir' | 'tlsMode' | 'tlsCaKeyDir'>,
  ports: { httpsPort: number | null; httpPort: number },
  logger: Logger,
): Promise<LocalAgent> {
  const hubUrl =
    ports.httpsPort !== null ? `https://127.0.0.1:${ports.httpsPort}` : `http://127.0.0.1:${ports.httpPort}`;
  const { file, assetId } = await enrollLocalAgent(hub, config, hubUrl);
  await hub.services.assets.markHubHost(systemOwnerContext(), assetId);
  let child: ChildProcess | null = null;
  let stopping = false;
  let restarts = 0;
  let connected = false;
  let lastOutputAt = Date.now();

  const run = () => {
    const proc = spawn(process.execPath, [agentLauncher, 'run', '--config', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: agentEnvironment(),
    });
    child = proc;
    const forward = (chunk: Buffer) => {
      lastOutputAt = Date.now();
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.trim()) continue;
        if (connectedLine.test(line)) connected = true;
        logger.info({ local_agent: true }, line.slice(0, 2000));
      }
    };
    proc.stdout.on('data', forward);
    proc.stderr.on('data', forward);
    proc.once('exit', (code, signal) => {
      child = null;
      if (stopping) return;
      restarts++;
      const delay = Math.min(60_000, 1000 * 2 ** Math.min(restarts, 6));
      logger.warn(
        { code, signal },
        `the local agent exited; starting it again in ${Math.round(delay / 1000)} s`,
      );
      setTimeout(() => {
        if (!stopping) run();
      }, delay).unref();
    });
  };
  run();
  logger.info({ settings: file }, 'started the local agent for this machine (power actions off)');

  return {
    async settled(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (connected && Date.now() - lastOutputAt >= settleQuietMs) return true;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return connected;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        stopping = true;
        const proc = child;
        if (!proc || proc.exitCode !== null) {
          resolve();
          return;
        }
        const kill = setTimeout(() => proc.kill('SIGKILL'), 5000);
        proc.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        proc.kill('SIGTERM');
      }),
  };
}
