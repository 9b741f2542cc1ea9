/**
 * The exit codes `svc` ends with, for scripts (docs/decisions/0036-cli-exit-codes.md). One code per thing a
 * script can act on: retry later (5), fix the credential (3), fix the arguments (2), look at a target (1).
 */
import type { ErrorCode } from '@svc/protocol';
import { SvcApiError, ExecStreamBrokenError } from '@svc/sdk';

export const exitCodes = {
  ok: 0,
  /** `svc exec`: at least one target did not run to exit code 0 (error, timeout, offline, non-zero). */
  targetFailed: 1,
  /** Bad arguments, or input the hub refused as invalid (400, 413, 415). */
  usage: 2,
  /** No credential, a key the hub refuses (401) or a key without the right (403), an unsafe config file. */
  auth: 3,
  /** The asset, group, key, path or file does not exist (404), or is outside the key's allowed assets. */
  notFound: 4,
  /** The hub cannot be reached: connection, DNS, TLS verification, no answer in time, 502/503/504. */
  unreachable: 5,
  /** The hub refused the request in the state things are in: a conflict, rate limit, asset offline (409, 422, 429). */
  refused: 6,
  /** The hub failed (500 and other server errors) or its answer could not be read. */
  hubError: 7,
  /** Stopped by Ctrl-C (SIGINT), as shells report it. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes];

/** A failure the CLI itself detects, with what to do about it. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    readonly hint: string | null = null,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The exit code of an HTTP status the hub (or something in front of it) answered with. */
export function exitCodeForStatus(status: number): ExitCode {
  if (status === 401 || status === 403) return exitCodes.auth;
  if (status === 404) return exitCodes.notFound;
  if (status === 400 || status === 413 || status === 415 || status === 405) return exitCodes.usage;
  if (status === 502 || status === 503 || status === 504) return exitCodes.unreachable;
  if (status >= 500) return exitCodes.hubError;
  return exitCodes.refused;
}

const networkCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

const tlsCodes = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function errorCode(error: unknown): string {
  if (error && typeof error === 'object' && 'code' in error) return String(error.code);
  return '';
}

/** Whether the connection failed because the hub's certificate is not trusted here. */
export function isUntrustedCertificate(error: unknown): boolean {
  return tlsCodes.has(errorCode(error));
}

/** What a failure means for the user: one line to read, an optional line on what to do, the exit code. */
export interface Failure {
  message: string;
  hint: string | null;
  exitCode: ExitCode;
  /** The hub's error code and request id, when the hub answered. */
  hubError?: { code: ErrorCode; requestId: string };
}

/** Hints for the hub's error codes a user can act on; the hub's message comes first, always. */
const hubHints: Partial<Record<ErrorCode, string>> = {
  unauthorized:
    'the key is unknown, revoked or expired: sign in again with `svc login`, or set SVC_API_KEY to a valid key',
  forbidden: "the key's role, scopes or allowed assets do not cover this: ask an admin for a key that does",
  insufficient_scope: 'the key lacks the scope this needs: ask an admin for a key with it',
  admin_required: 'this needs an admin key',
  https_required: 'keys are accepted only over HTTPS: use the https:// address of the hub',
  read_only_role: 'a viewer key cannot change anything: use an operator or admin key',
  not_found: 'check the name or id (`svc assets ls` lists what this key can see)',
  asset_offline: "the asset's agent is not connected: check it with `svc assets show <asset>`",
  rate_limited: 'too many requests: wait a moment and try again',
  validation: 'check the arguments (`svc <command> --help`)',
};

/** Any error thrown while running a command, as the user should see it. */
export function describeFailure(error: unknown, hubUrl: string | null): Failure {
  if (error instanceof CliError)
    return { message: error.message, hint: error.hint, exitCode: error.exitCode };
  if (error instanceof SvcApiError) {
    const problems = error.details.map((d) => `${d.field}: ${d.problem}`).join('; ');
    return {
      message: `the hub refused: ${error.hubMessage}${problems ? ` (${problems})` : ''}`,
      hint: hubHints[error.code] ?? null,
      exitCode: exitCodeForStatus(error.status),
      hubError: { code: error.code, requestId: error.body.request_id },
    };
  }
  if (error instanceof ExecStreamBrokenError) {
    return {
      message: error.message,
      hint: 'the connection to the hub broke: the commands already sent still run; check the results with the audit log',
      exitCode: exitCodes.unreachable,
    };
  }
  const code = errorCode(error);
  const where = hubUrl ?? 'the hub';
  const text = error instanceof Error ? error.message : String(error);
  if (tlsCodes.has(code)) {
    return {
      message: `cannot verify ${where}: ${text}`,
      hint: "pass the hub's CA with --ca <file> (or SVC_CA_FILE), or pin it with `svc login --ca-fingerprint <sha256>`",
      exitCode: exitCodes.unreachable,
    };
  }
  if (networkCodes.has(code) || /no answer/.test(text)) {
    return {
      message: `cannot reach ${where}: ${text}`,
      hint: 'check the address (--hub or SVC_HUB_URL) and that the hub is running',
      exitCode: exitCodes.unreachable,
    };
  }
  return { message: text, hint: null, exitCode: exitCodes.hubError };
}
