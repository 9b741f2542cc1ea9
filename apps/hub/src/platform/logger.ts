import { pino, type Logger } from 'pino';

export type { Logger };

/** Paths that may carry secrets: never written to the log. */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  'password',
  'raw_key',
  '*.password',
  '*.raw_key',
  '*.secret',
];

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: redactedPaths, censor: '[redacted]' } });
}

export const silentLogger: Logger = pino({ level: 'silent' });
