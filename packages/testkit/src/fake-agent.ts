/**
 * A fake agent that speaks the real channel catalog: it connects with a credential, says hello, answers
 * requests with handlers the test gives (or a default echo of success), and can send heartbeats, metrics
 * and hand-made (hostile) frames. The fleet simulator runs thousands of these in one process.
 */
import { TLSSocket, type SecureContext } from 'node:tls';
import WebSocket from 'ws';
import {
  agentProtocolVersion,
  parseRetryAfter,
  type AgentErrorCode,
  type AgentRequestPayload,
  type AgentRequestResult,
  type AgentRequestType,
  type Hello,
  type MetricSample,
  type Welcome,
} from '@svc/protocol';

export type FakeHandler<T extends AgentRequestType> = (
  payload: AgentRequestPayload<T>,
) => AgentRequestResult<T> | Promise<AgentRequestResult<T> | FakeFailure> | FakeFailure;

/** An agent's error answer, as a handler returns it. */
export interface FakeFailure {
  error: { code: AgentErrorCode; message: string };
}

export type FakeHandlers = { [T in AgentRequestType]?: FakeHandler<T> };

/** The hub answered the upgrade with `status`; a busy hub's Retry-After in ms (as the real agent reads it). */
export class UpgradeRefusedError extends Error {
  constructor(
    readonly status: number,
    readonly retryAfterMs: number | null,
  ) {
    super(`upgrade refused: ${String(status)}`);
  }
}

export interface FakeAgentOptions {
  url: string;
  credential: string;
  ca?: string;
  /**
   * A TLS context made once for many agents (the fleet simulator): building one from `ca` per connection costs
   * about a millisecond of CPU, a good part of a simulated connect. Takes precedence over `ca`.
   */
  secureContext?: SecureContext;
  hello?: Partial<Hello>;
  handlers?: FakeHandlers;
  /** The opening handshake (TCP, TLS, upgrade) fails after this long; no limit when absent. */
  handshakeTimeoutMs?: number;
  /** A TLS session (ticket) from an earlier connection to offer, as the real agent does (decision 0072). */
  session?: Buffer;
  /** Skip TLS verification (only for loopback test hubs whose certificate is not for the clock). */
  insecure?: boolean;
  /**
   * Open `pty` streams as an echo terminal: every input byte comes back as output (within the hub's
   * window), `exit N\r` ends the stream with exit code N. Without it, stream opens are refused unsupported.
   */
  terminal?: boolean;
}

/** A stream the fake agent holds open (terminal option). */
export interface FakeStream {
  id: string;
  credit: number;
  input: string;
  closedBy: string | null;
}

export function defaultHello(overrides: Partial<Hello> = {}): Hello {
  return {
    agent_version: 'fake-1.0.0',
    protocol: agentProtocolVersion,
    hostname: 'fake-host',
    platform: 'linux',
    os_release: 'FakeOS 1',
    arch: 'x64',
    ip_addresses: ['192.0.2.10'],
    mac_addresses: ['02:00:00:00:00:01'],
    capabilities: ['exec', 'metrics'],
    low_power: false,
    ...overrides,
  };
}

let frameCounter = 0;
const frameId = () => `f${(++frameCounter).toString(36)}`;

export class FakeAgent {
  readonly socket: WebSocket;
  welcome: Welcome | null = null;
  readonly received: { type: string; id: string; payload: unknown }[] = [];
  private readonly opened: Promise<void>;
  private closedWith: { code: number; reason: string } | null = null;
  private readonly closeWaiters: ((c: { code: number; reason: string }) => void)[] = [];
  private onWelcome: ((welcome: Welcome) => void) | null = null;
  /** Streams opened by the hub (terminal option), by id. */
  readonly streams = new Map<string, FakeStream>();
  /** Over TLS, once upgraded: whether the hub resumed the session offered. */
  tlsResumed: boolean | null = null;
  /** Over TLS: the latest session the hub gave, to offer on the next connection. */
  tlsSession: Buffer | undefined;

  constructor(private readonly options: FakeAgentOptions) {
    this.socket = new WebSocket(options.url, {
      headers: { authorization: `Bearer ${options.credential}` },
      ...(options.secureContext
        ? { secureContext: options.secureContext }
        : options.ca
          ? { ca: options.ca }
          : {}),
      ...(options.session ? { session: options.session } : {}),
      ...(options.handshakeTimeoutMs ? { handshakeTimeout: options.handshakeTimeoutMs } : {}),
      rejectUnauthorized: !options.insecure,
      perMessageDeflate: false,
    });
    this.tlsSession = options.session;
    this.socket.once('upgrade', (res) => {
      const socket: unknown = res.socket;
      if (!(socket instanceof TLSSocket)) return;
      this.tlsResumed = socket.isSessionReused();
      this.tlsSession = socket.getSession() ?? this.tlsSession;
      socket.on('session', (session: Buffer) => {
        this.tlsSession = session;
      });
    });
    this.opened = new Promise((resolve, reject) => {
      this.socket.once('open', () => {
        resolve();
      });
      this.socket.once('error', reject);
      this.socket.once('unexpected-response', (_req, res) => {
        const status = res.statusCode ?? 0;
        res.resume();
        reject(
          new UpgradeRefusedError(
            status,
            status === 503 || status === 429 ? parseRetryAfter(res.headers['retry-after'], Date.now()) : null,
          ),
        );
      });
    });
    this.socket.on('message', (data: Buffer) => {
      this.onMessage(data.toString('utf8'));
    });
    this.socket.on('close', (code, reason) => {
      this.closedWith = { code, reason: reason.toString() };
      for (const w of this.closeWaiters.splice(0)) w(this.closedWith);
    });
    this.socket.on('error', () => undefined);
  }

  /** Connects and completes hello/welcome. */
  async start(timeoutMs = 15_000): Promise<Welcome> {
    await this.opened;
    const welcomed = new Promise<Welcome>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error('no welcome in time'));
      }, timeoutMs);
      this.onWelcome = (welcome) => {
        clearTimeout(timer);
        resolve(welcome);
      };
      this.closeWaiters.push((c) => {
        clearTimeout(timer);
        reject(new Error(`closed before welcome: ${c.code} ${c.reason}`));
      });
    });
    this.send('hello', defaultHello(this.options.hello));
    return welcomed;
  }

  send(type: string, payload: unknown, id: string = frameId()): void {
    this.socket.send(JSON.stringify({ v: agentProtocolVersion, type, id, payload }));
  }

  sendRaw(text: string | Buffer): void {
    this.socket.send(text);
  }

  heartbeat(uptime = 1): void {
    this.send('heartbeat', { uptime_s: uptime, load1: 0.1 });
  }

  metrics(samples: MetricSample[]): void {
    this.send('metrics', { samples });
  }

  closed(): Promise<{ code: number; reason: string }> {
    if (this.closedWith) return Promise.resolve(this.closedWith);
    return new Promise((resolve) => this.closeWaiters.push(resolve));
  }

  close(): void {
    this.socket.close();
  }

  private onMessage(text: string): void {
    let frame: { type?: unknown; id?: unknown; payload?: unknown };
    try {
      frame = JSON.parse(text) as typeof frame;
    } catch {
      return;
    }
    const type = String(frame.type);
    const id = String(frame.id);
    this.received.push({ type, id, payload: frame.payload });
    if (type === 'welcome') {
      this.welcome = frame.payload as Welcome;
      this.onWelcome?.(this.welcome);
      return;
    }
    if (type.startsWith('stream.')) {
      this.onStream(type, frame.payload as Record<string, unknown>);
      return;
    }
    void this.answer(type, id, frame.payload);
  }

  /** Sends terminal output on a stream, as much as the hub's window allows. */
  output(streamId: string, text: string): void {
    const stream = this.streams.get(streamId);
    if (!stream) return;
    const bytes = Buffer.from(text).subarray(0, Math.max(0, stream.credit));
    if (bytes.length === 0) return;
    stream.credit -= bytes.length;
    this.send('stream.data', { stream: streamId, data: bytes.toString('base64') }, streamId);
  }

  private onStream(type: string, payload: Record<string, unknown>): void {
    const id = String(payload.stream);
    if (type === 'stream.open') {
      if (!this.options.terminal || payload.kind !== 'pty') {
        this.send(
          'stream.close',
          { stream: id, reason: 'unsupported', error: { code: 'unsupported', message: 'no terminals here' } },
          id,
        );
        return;
      }
      this.streams.set(id, { id, credit: Number(payload.window_bytes), input: '', closedBy: null });
      this.send(
        'stream.opened',
        { stream: id, window_bytes: 65_536, info: { shell: '/bin/fake', pid: 1 } },
        id,
      );
      return;
    }
    const stream = this.streams.get(id);
    if (!stream) return;
    if (type === 'stream.ack') stream.credit += Number(payload.bytes);
    if (type === 'stream.close') {
      stream.closedBy = String(payload.reason);
      this.streams.delete(id);
    }
    if (type === 'stream.data') {
      const text = Buffer.from(String(payload.data), 'base64').toString('utf8');
      stream.input += text;
      this.send('stream.ack', { stream: id, bytes: Buffer.byteLength(text) }, id);
      const exit = /exit (\d+)\r/.exec(stream.input);
      if (exit) {
        this.streams.delete(id);
        this.send(
          'stream.close',
          { stream: id, reason: 'exited', exit: { code: Number(exit[1]), signal: null } },
          id,
        );
        return;
      }
      this.output(id, text);
    }
  }

  private async answer(type: string, id: string, payload: unknown): Promise<void> {
    const handler = (
      this.options.handlers as Record<string, ((p: unknown) => unknown) | undefined> | undefined
    )?.[type];
    if (!handler) {
      this.send(
        'result',
        { ok: false, error: { code: 'unsupported', message: `fake agent has no handler for ${type}` } },
        id,
      );
      return;
    }
    try {
      const result = await handler(payload);
      if (isFakeFailure(result)) {
        this.send('result', { ok: false, error: result.error }, id);
      } else {
        this.send('result', { ok: true, data: result }, id);
      }
    } catch (error) {
      this.send(
        'result',
        { ok: false, error: { code: 'failed', message: error instanceof Error ? error.message : 'failed' } },
        id,
      );
    }
  }
}

/** An exec handler that answers like a shell echo: stdout is the command text. */
export const echoExec: FakeHandler<'exec.run'> = (payload) => ({
  exit_code: 0,
  signal: null,
  stdout: `${payload.command}\n`,
  stderr: '',
  truncated: false,
  timed_out: false,
  duration_ms: 1,
});

/** A handler's error answer: `{error: {code, message}}` (a result whose `error` is a string or null is data). */
function isFakeFailure(result: unknown): result is FakeFailure {
  if (!result || typeof result !== 'object' || !('error' in result)) return false;
  const error = result.error;
  return typeof error === 'object' && error !== null && 'code' in error;
}
