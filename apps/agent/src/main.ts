/**
 * The daemon (`svc-agent run`): settings → platform → handlers → channel and metrics. The only place that
 * wires the agent together; `startAgent` is also what a script or test uses to run an agent in-process.
 */
import os from 'node:os';
import {
  agentCapabilities,
  agentProtocolVersion,
  type Heartbeat,
  type Hello,
  type HelloInterface,
} from '@svc/protocol';
import { AgentChannel, type ChannelEvent } from './channel/client.js';
import { createDispatcher } from './channel/dispatch.js';
import { MetricsBuffer, MetricsCollector } from './collectors/metrics.js';
import { readSettingsFile, updateSettingsFile } from './config/settings-file.js';
import { resolveSettings, type AgentSettings } from './config/settings.js';
import { createHandlers } from './handlers/index.js';
import type { ExecOptions } from './handlers/exec.js';
import { lazyOpeners, once } from './handlers/lazy.js';
import { createAgentGuard } from './handlers/protected-paths.js';
import { ptyShellOptions } from './handlers/pty-settings.js';
import { RunningCommands } from './handlers/running-commands.js';
import { createLogger, type Logger } from './logger.js';
import type { DockerEngine } from './platform/docker-engine.js';
import { findPackageManager } from './platform/package-managers/detect.js';
import { createPlatformAdapter, type PlatformAdapter } from './platform/platform.js';
import { runCommand } from './platform/run-command.js';
import { agentVersion } from './version.js';

export interface StartAgentOptions {
  configPath: string;
  env: Readonly<Record<string, string | undefined>>;
  nodePlatform?: NodeJS.Platform;
  logger?: Logger;
  /** Log files readable through system.logs live under this directory (default /var/log). */
  logRoot?: string;
  exec?: ExecOptions;
  onEvent?: (event: ChannelEvent) => void;
}

export interface RunningAgent {
  readonly settings: AgentSettings;
  readonly channel: AgentChannel;
  stop(): Promise<void>;
}

export class AgentStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentStartError';
  }
}

/**
 * The addresses `hello` reports, from `os.networkInterfaces()` without loopback: each with its prefix too, so
 * the hub can tell which LAN this agent could relay a Wake-on-LAN packet to.
 */
export function helloAddresses(
  nics: NodeJS.Dict<os.NetworkInterfaceInfo[]>,
): Pick<Hello, 'ip_addresses' | 'mac_addresses' | 'interfaces'> {
  const ips: string[] = [];
  const interfaces: HelloInterface[] = [];
  const macs = new Set<string>();
  for (const infos of Object.values(nics)) {
    for (const info of infos ?? []) {
      if (info.internal) continue;
      ips.push(info.address);
      const prefix = Number(info.cidr?.split('/')[1]);
      if (Number.isInteger(prefix)) interfaces.push({ address: info.address, prefix });
      if (info.mac && info.mac !== '00:00:00:00:00:00') macs.add(info.mac.toLowerCase());
    }
  }
  return {
    ip_addresses: ips.slice(0, 64),
    mac_addresses: [...macs].slice(0, 64),
    interfaces: interfaces.slice(0, 64),
  };
}

/** Whether the container engine answers now (`hello` is built at every connect, so a later engine shows then). */
async function engineAnswers(engine: DockerEngine | undefined): Promise<boolean> {
  if (!engine) return false;
  try {
    await engine.ping(2_000);
    return true;
  } catch {
    return false;
  }
}

/** The identity the agent announces in `hello`. */
export async function buildHello(
  platform: PlatformAdapter,
  settings: AgentSettings,
  engine?: DockerEngine,
): Promise<Hello> {
  // Elsewhere only the plain-Node areas work (exec needs /bin/sh, so not on Windows).
  const portable: readonly string[] =
    platform.name === 'windows' ? ['files', 'wol', 'checks'] : ['exec', 'files', 'wol', 'checks'];
  const hasEngine = await engineAnswers(engine);
  // Asked at every connect, so a manager installed later shows then; the drivers are not loaded for it.
  const hasManager = platform.name === 'linux' && (await findPackageManager()) !== null;
  const capabilities = agentCapabilities.filter((c) => {
    if (c === 'containers') return hasEngine;
    if (c === 'updates') return hasManager;
    return platform.name === 'linux' || portable.includes(c);
  });
  return {
    agent_version: agentVersion,
    protocol: agentProtocolVersion,
    hostname: os.hostname().slice(0, 253),
    platform: platform.name,
    os_release: await platform.osRelease(),
    arch: os.arch().slice(0, 32),
    ...helloAddresses(os.networkInterfaces()),
    capabilities,
    low_power: settings.lowPowerMode,
  };
}

function buildHeartbeat(): Heartbeat {
  const load1 = os.loadavg()[0];
  return {
    uptime_s: Math.max(0, Math.floor(os.uptime())),
    load1: load1 === undefined ? null : Math.max(0, load1),
  };
}

export async function startAgent(options: StartAgentOptions): Promise<RunningAgent> {
  const logger = options.logger ?? createLogger();
  const nodePlatform = options.nodePlatform ?? process.platform;
  const file = await readSettingsFile(options.configPath);
  if (file.error) throw new AgentStartError(file.error);
  const resolved = resolveSettings({ env: options.env, file: file.content, platform: nodePlatform });
  for (const warning of resolved.warnings) logger.warn(warning);
  const settings = resolved.settings;
  if (!settings.hubUrl || !settings.credential) {
    throw new AgentStartError(
      `not enrolled: ${options.configPath} has no hub_url or credential; run \`svc-agent enroll --hub <url> --token <sve_…>\``,
    );
  }

  let credential = settings.credential;
  // The agent's own credential and process are always protected, besides what the hub asked for.
  const guard = createAgentGuard(settings, options.configPath);
  const platform = createPlatformAdapter(nodePlatform, {
    allowPowerActions: () => settings.allowPowerActions,
    ...(options.logRoot ? { logRoot: options.logRoot } : {}),
    guard,
  });
  const commands = new RunningCommands();
  // The engine client is loaded by the first hello (it asks whether the engine answers), not by the start.
  const engine = once('container engine', async () =>
    (await import('./platform/docker-engine.js')).createDockerEngine(settings.containerEndpoint),
  );
  // The node's own port-scan setting overrides the fleet's default only when someone set it here.
  const portScanSource = resolved.sources.services_discovery_port_scan_enabled;
  const handlers = createHandlers({
    platform,
    guard,
    engine,
    portScanOverride: portScanSource === 'default' ? null : settings.servicesDiscoveryPortScanEnabled,
    exec: { ...options.exec, running: commands },
    saveCredential: async (next) => {
      await updateSettingsFile(options.configPath, { credential: next });
      credential = next;
      logger.info('credential rotated and saved');
    },
  });

  const metrics = new MetricsBuffer();
  const channel = new AgentChannel({
    hubUrl: settings.hubUrl,
    hubUrls: settings.hubUrls,
    getCredential: () => credential,
    caPem: settings.caPem,
    hello: async () => buildHello(platform, settings, await engine()),
    heartbeat: buildHeartbeat,
    dispatch: createDispatcher(handlers, logger),
    // Terminals and desktop tunnels load their code with their first stream (decision 0067).
    streamOpeners: {
      ...lazyOpeners('terminal', ['pty'], async () =>
        (await import('./handlers/pty.js')).createPtyOpeners({
          nodePlatform,
          runCommand,
          ...ptyShellOptions(settings),
        }),
      ),
      ...lazyOpeners('desktop', ['tcp'], async () =>
        (await import('./handlers/tunnel.js')).createTunnelOpeners(settings),
      ),
    },
    heartbeatIntervalS: settings.heartbeatIntervalS,
    metrics,
    logger,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  });

  let collectTimer: NodeJS.Timeout | undefined;
  if (platform.readCounters) {
    const collector = new MetricsCollector(platform.readCounters);
    const collect = () => {
      collector
        .sample()
        .then((sample) => {
          metrics.push(sample);
          channel.flushMetrics();
        })
        .catch((error: unknown) => {
          logger.warn('metrics collection failed', { error: (error as Error).message });
        });
    };
    collect(); // the first reading is the baseline for CPU and network deltas
    collectTimer = setInterval(collect, settings.collectIntervalS * 1000);
  }

  logger.info('svc-agent starting', {
    version: agentVersion,
    hub: settings.hubUrl,
    platform: platform.name,
    low_power: settings.lowPowerMode,
  });
  channel.start();
  return {
    settings,
    channel,
    async stop() {
      clearInterval(collectTimer);
      await channel.stop();
      await commands.stopAll();
    },
  };
}

/** `svc-agent run`: start, then stop cleanly on SIGTERM or SIGINT. */
export async function runDaemon(options: StartAgentOptions): Promise<void> {
  const agent = await startAgent(options);
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      (options.logger ?? createLogger()).info('stopping', { signal });
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      agent.stop().then(resolve, resolve);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
