/**
 * Running the hub: `svc-hub` with no command (or `serve`), as `npm start` does. Loaded by main.ts only when the
 * hub is to run, so the operator's commands (`--version`, `backup`, `migrate`…) do not load the server, its
 * modules and their npm packages first.
 */
import type { HubConfig } from './config/env.js';
import { createHub } from './hub.js';
import { createLogger, type Logger } from './platform/logger.js';
import { prettyDestination } from './platform/log-pretty.js';
import { CertificateProblem } from './platform/tls/certificates.js';
import { DataDirLocked } from './platform/data-dir-lock.js';
import { DatabaseNewerThanHub } from './platform/db/database.js';
import { startLocalAgent } from './local-agent.js';
import { startupBanner } from './startup-banner.js';
import { httpsServerFactory, startServers } from './server.js';

function fail(message: string, code: number): never {
  process.stderr.write(`svc hub: ${message}\n`);
  process.exit(code);
}

/** How long the start-up banner waits for the local agent's start (a slow machine's Node start included). */
const localAgentSettleMs = 30_000;

/** Starts the hub; `restart` closes it and starts it again in this process (POST /api/settings/restart). */
async function run(config: HubConfig, logger: Logger): Promise<void> {
  let restarting = false;
  const hub = await createHub({
    config,
    logger,
    serverFactory: httpsServerFactory,
    requestRestart: () => {
      if (restarting) return;
      restarting = true;
      logger.info('restarting on request');
      void stopAll().then(() => run(config, logger));
    },
  });
  let servers;
  try {
    servers = await startServers(hub, config);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') {
      fail(
        `cannot listen (${code}): ports ${config.httpsPort}/${config.httpPort} are taken or not allowed; set SVC_HTTPS_PORT and SVC_HTTP_PORT`,
        1,
      );
    }
    throw error;
  }
  const running = servers;
  const localAgent = config.localAgent ? await startLocalAgent(hub, config, running, logger) : null;
  async function stopAll(): Promise<void> {
    await localAgent?.stop();
    await running.close();
    await hub.close();
  }
  // The banner after the local agent's own start-up lines (its "connected" line reaches us through a pipe,
  // after the hub has counted it connected), so that it ends the log with the console's address.
  if (localAgent && !(await localAgent.settled(localAgentSettleMs))) {
    logger.warn(
      `the local agent has not connected in ${String(localAgentSettleMs / 1000)} s; its lines may follow the console's address`,
    );
  }
  for (const line of startupBanner(hub, config, running)) logger.info(line.fields, line.message);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // The drain: /readyz says `stopping` while requests and agents are served as before, so that a load
    // balancer's health checks move new requests to the other processes before this one refuses any.
    hub.markStopping();
    logger.info({ signal, drain_seconds: config.shutdownDrainMs / 1000 }, 'shutting down');
    await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs));
    // Out of the balancer now: the agents are told to reconnect to the other processes, spread out, before
    // anything closes (decision 0055). A single process has nowhere to send them.
    if (config.natsUrl) {
      await hub.tellAgentsToMove({ perSecond: config.agentMoveRate }).catch((error: unknown) => {
        logger.error({ err: error }, 'telling the agents to move failed');
      });
    }
    // Committed data is safe at any point (WAL); a close that hangs must not keep the process alive.
    setTimeout(() => {
      logger.warn('shutdown took over 5 s; exiting now');
      process.exit(0);
    }, 5000).unref();
    stopAll().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  process.on('SIGINT', () => {
    void stop('SIGINT');
  });
  process.on('SIGTERM', () => {
    void stop('SIGTERM');
  });
}

export async function serve(config: HubConfig): Promise<void> {
  const logger = createLogger(
    config.logLevel,
    config.logFormat === 'pretty' ? prettyDestination() : undefined,
  );
  try {
    await run(config, logger);
  } catch (error) {
    if (error instanceof CertificateProblem) {
      // In the log too (a service manager may keep only that), at error: the process does not start.
      logger.error({ err: error }, `TLS: ${error.message}`);
      fail(`TLS: ${error.message}`, 2);
    }
    if (error instanceof DataDirLocked) fail(error.message, 1);
    if (error instanceof DatabaseNewerThanHub) fail(error.message, 2);
    throw error;
  }
}
