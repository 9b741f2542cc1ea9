import { ConfigError, parseEnv } from './config/env.js';
import { createHub } from './hub.js';
import { createLogger } from './platform/logger.js';

async function main(): Promise<void> {
  let config;
  try {
    config = parseEnv(process.env, process.cwd());
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`svc hub: configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const hub = await createHub({ config, logger });
  const port = config.httpPort;
  try {
    await hub.app.listen({ host: config.host, port });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE') {
      logger.error(`port ${port} is in use: stop the other program or set SVC_HTTP_PORT to a free port`);
      process.exit(1);
    }
    throw error;
  }
  logger.info(
    { mode: config.tlsMode, database: hub.database.dialect, data_dir: config.dataDir },
    `svc hub listening on http://${config.host}:${port} (API at /api/v2, description at /api/v2/openapi.json)`,
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    hub.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => {
    stop('SIGINT');
  });
  process.on('SIGTERM', () => {
    stop('SIGTERM');
  });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `svc hub failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
