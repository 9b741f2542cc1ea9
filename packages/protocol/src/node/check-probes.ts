/**
 * The three probes a service check runs, shared by the hub and the agent (decisions 0079 and 0084). Each dials
 * the address `resolve` answers for the target's host: on the hub that is the egress guard's judged address,
 * so the socket goes where the guard looked and nowhere else; on an agent a plain lookup on its own network.
 * Each returns an outcome, never throws: a refusal, a timeout, a refused connection are all a failed run.
 *
 * Ping: ICMP needs a raw socket or the kernel's ping group, so the system `ping` binary runs with fixed
 * arguments (one echo, a deadline, numeric output) to an address literal, as argv, under a timeout.
 */
import { execFile } from 'node:child_process';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { TLSSocket } from 'node:tls';
import { checkLimits } from '../check-limits.js';
import type { CheckTarget } from './check-targets.js';

export interface ProbeOutcome {
  ok: boolean;
  latencyMs: number | null;
  statusCode: number | null;
  error: string | null;
  /** The TLS certificate's notAfter (https only). */
  certExpiresAt: string | null;
}

export interface HttpExpectation {
  /** Null: any 2xx or 3xx. */
  status: readonly number[] | null;
  /** Text the body must contain. */
  body: string | null;
}

export interface ProbeOptions {
  timeoutMs: number;
  /** Host → the address to dial (the hub: judged by its egress guard, which throws when it refuses). */
  resolve: (host: string) => Promise<string>;
  /** Words for an error `resolve` or a socket threw that the caller knows (the egress guard's refusal). */
  describeRefusal?: (error: unknown) => string | null;
  /** Where the probe runs, for the message when `ping` is missing (`the hub`, `this agent`). */
  origin: string;
  /** https: the certificate must be trusted. */
  tlsVerify: boolean;
  expect: HttpExpectation;
  /** The ping binary (tests and hosts without it in PATH). */
  pingBinary?: string;
}

/** Whether an HTTP answer meets the expectation; the reason when it does not. */
export function evaluateHttp(
  status: number,
  body: string,
  expect: HttpExpectation,
): { ok: true } | { ok: false; error: string } {
  const statusOk = expect.status === null ? status >= 200 && status < 400 : expect.status.includes(status);
  if (!statusOk) {
    const wanted = expect.status === null ? '2xx or 3xx' : expect.status.join(', ');
    return { ok: false, error: `status ${String(status)}, expected ${wanted}` };
  }
  if (expect.body !== null && !body.includes(expect.body)) {
    return { ok: false, error: 'the body does not contain the expected text' };
  }
  return { ok: true };
}

const failed = (error: string, latencyMs: number | null = null): ProbeOutcome => ({
  ok: false,
  latencyMs,
  statusCode: null,
  error: error.slice(0, checkLimits.errorLength),
  certExpiresAt: null,
});

function describeError(error: unknown, options: Pick<ProbeOptions, 'describeRefusal'>): string {
  const refused = options.describeRefusal?.(error) ?? null;
  if (refused !== null) return refused;
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== undefined && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

export async function runProbe(target: CheckTarget, options: ProbeOptions): Promise<ProbeOutcome> {
  let address: string;
  let timer: NodeJS.Timeout | undefined;
  try {
    // A lookup that hangs is bounded by the check's timeout too.
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new Error(`${target.host} did not resolve within ${String(options.timeoutMs)} ms`));
      }, options.timeoutMs);
    });
    address = await Promise.race([options.resolve(target.host), late]);
  } catch (error) {
    return failed(describeError(error, options));
  } finally {
    clearTimeout(timer);
  }
  switch (target.kind) {
    case 'http':
      return probeHttp(target.url, address, options);
    case 'tcp':
      return probeTcp(address, target.port, options);
    case 'ping':
      return probePing(address, options);
  }
}

function probeHttp(url: URL, address: string, options: ProbeOptions): Promise<ProbeOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const secure = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    let certExpiresAt: string | null = null;
    let settled = false;
    const finish = (outcome: ProbeOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(outcome);
    };
    const onResponse = (res: IncomingMessage) => {
      const latencyMs = elapsed();
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const judge = () => {
        const body = Buffer.concat(chunks).subarray(0, checkLimits.bodyReadBytes).toString('utf8');
        const verdict = evaluateHttp(status, body, options.expect);
        finish({
          ok: verdict.ok,
          latencyMs,
          statusCode: status,
          error: verdict.ok ? null : verdict.error,
          certExpiresAt,
        });
      };
      if (options.expect.body === null) {
        judge();
        return;
      }
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        // Enough read: the rest of a large page is not needed to find the text.
        if (size >= checkLimits.bodyReadBytes) judge();
      });
      res.on('end', judge);
      res.on('error', (error) => {
        finish(failed(describeError(error, options), latencyMs));
      });
    };
    const requestOptions = {
      host: address,
      port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: { host: url.host, 'user-agent': 'svc-hub-check', accept: '*/*' },
      agent: false as const,
    };
    const req = secure
      ? httpsRequest(
          {
            ...requestOptions,
            // SNI and the name check are for the name asked for, not the address dialled.
            ...(isAddressLiteral(host) ? {} : { servername: host }),
            rejectUnauthorized: options.tlsVerify,
          },
          onResponse,
        )
      : httpRequest(requestOptions, onResponse);
    if (secure) {
      req.on('socket', (socket) => {
        socket.once('secureConnect', () => {
          if (!(socket instanceof TLSSocket)) return;
          const cert = socket.getPeerCertificate();
          const notAfter = Date.parse(cert.valid_to);
          if (Number.isFinite(notAfter)) certExpiresAt = new Date(notAfter).toISOString();
        });
      });
    }
    req.on('error', (error) => {
      finish(failed(describeError(error, options), null));
    });
    const timer = setTimeout(() => {
      finish(failed(`no answer within ${String(options.timeoutMs)} ms`));
    }, options.timeoutMs);
    req.end();
  });
}

function probeTcp(address: string, port: number, options: ProbeOptions): Promise<ProbeOutcome> {
  const { timeoutMs } = options;
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect({ host: address, port });
    const finish = (outcome: ProbeOutcome) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    socket.once('connect', () => {
      finish({
        ok: true,
        latencyMs: Math.round(performance.now() - started),
        statusCode: null,
        error: null,
        certExpiresAt: null,
      });
    });
    socket.once('error', (error) => {
      finish(failed(describeError(error, options)));
    });
    const timer = setTimeout(() => {
      finish(failed(`no connection within ${String(timeoutMs)} ms`));
    }, timeoutMs);
  });
}

const pingTime = /time[=<]([\d.]+)\s*ms/;

function probePing(address: string, options: ProbeOptions): Promise<ProbeOutcome> {
  const seconds = Math.max(1, Math.ceil(options.timeoutMs / 1000));
  const args = [address.includes(':') ? '-6' : '-4', '-n', '-c', '1', '-w', String(seconds), address];
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      options.pingBinary ?? 'ping',
      args,
      { timeout: options.timeoutMs + 1000, maxBuffer: 16_384, env: { LC_ALL: 'C' } },
      (error, stdout) => {
        const match = pingTime.exec(stdout);
        const latencyMs = match?.[1] !== undefined ? Math.round(Number(match[1])) : null;
        if (error === null) {
          resolve({
            ok: true,
            latencyMs: latencyMs ?? Math.round(performance.now() - started),
            statusCode: null,
            error: null,
            certExpiresAt: null,
          });
          return;
        }
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') resolve(failed(`ping is not installed on ${options.origin}; use a tcp check`));
        else resolve(failed(`no echo reply from ${address} within ${String(seconds)} s`));
      },
    );
  });
}

function isAddressLiteral(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}
