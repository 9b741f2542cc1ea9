import { pino, stdSerializers, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/** Paths that may carry secrets: never written to the log. */
const redactedPaths = [
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

/**
 * Bounds on what one log line may carry. Logged values often come from outside (a URL, an agent's frame, an
 * error quoting its input): without a bound one request or frame writes megabytes to the log.
 */
export const logLimits = {
  stringChars: 1024,
  arrayItems: 32,
  objectKeys: 64,
  depth: 6,
} as const;

export function truncateForLog(text: string, max: number = logLimits.stringChars): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}…[${text.length - max} more chars]`;
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * A bounded copy of a plain value: strings cut, arrays and objects shortened, nesting limited. Other objects
 * (errors, requests, dates) are left to their serializers.
 */
function capLogValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return truncateForLog(value);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    if (depth >= logLimits.depth) return `[array of ${value.length}]`;
    const items: unknown[] = value.slice(0, logLimits.arrayItems).map((v) => capLogValue(v, depth + 1));
    if (value.length > logLimits.arrayItems)
      items.push(`[${value.length - logLimits.arrayItems} more items]`);
    return items;
  }
  if (Buffer.isBuffer(value)) return `[${value.length} bytes]`;
  if (!isPlainObject(value)) return value;
  if (depth >= logLimits.depth) return '[object]';
  const out: Record<string, unknown> = {};
  let keys = 0;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    if (keys === logLimits.objectKeys) {
      out['…'] = 'more keys left out';
      break;
    }
    keys += 1;
    out[truncateForLog(key, 128)] = capLogValue(value[key], depth + 1);
  }
  return out;
}

function capError(error: unknown): unknown {
  if (!(error instanceof Error)) return capLogValue(error);
  return capLogValue({ ...stdSerializers.err(error) });
}

/**
 * Options shared by every hub logger: redaction, and the bounds above on each field and on the message. Child
 * bindings are not bounded (pino formats them apart); the hub's only child logger is Fastify's per request.
 */
function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: redactedPaths, censor: '[redacted]' },
    formatters: {
      log: (object) => capLogValue(object) as Record<string, unknown>,
    },
    serializers: {
      err: capError,
      msg: (message: unknown) => (typeof message === 'string' ? truncateForLog(message) : message),
    },
  };
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = loggerOptions(level);
  return destination ? pino(options, destination) : pino(options);
}

export const silentLogger: Logger = pino({ level: 'silent' });
