/**
 * A fleet of simulated agents in one process, for tests and benchmarks: each holds its own WebSocket to the
 * hub, says hello, answers exec with an echo, sends heartbeats and metrics on shared timers (never one timer
 * per agent), and reconnects after a drop with the real agent's reconnect policy (@svc/protocol, decision 0089):
 * the same ReconnectBackoff, told the same causes (lost, down, busy) as the real agent's channel.
 */
import { createSecureContext, type SecureContext } from 'node:tls';
import { systemOwnerContext, type Hub } from '@svc/hub';
import {
  agentChannelPath,
  agentReconnectPolicy,
  ReconnectBackoff,
  type MetricSample,
  type ReconnectCause,
  type ReconnectPolicy,
} from '@svc/protocol';
import { echoExec, FakeAgent, UpgradeRefusedError, type FakeHandlers } from './fake-agent.js';

export interface SimulatedAgentIdentity {
  assetId: string;
  credential: string;
  hostname: string;
}

/** Enrolls `count` agents through the hub's own enrollment service (rate limits must be off). */
export async function provisionAgents(
  hub: Hub,
  count: number,
  prefix = 'sim',
): Promise<SimulatedAgentIdentity[]> {
  const ctx = systemOwnerContext();
  const token = await hub.services.enrollment.createToken(ctx, {
    name: `${prefix} fleet`,
    max_uses: Math.max(1, Math.min(10_000, count)),
    expires_in_hours: 24,
  });
  let current = token;
  let left = current.max_uses;
  const out: SimulatedAgentIdentity[] = [];
  for (let i = 0; i < count; i++) {
    if (left === 0) {
      current = await hub.services.enrollment.createToken(ctx, {
        name: `${prefix} fleet`,
        max_uses: Math.min(10_000, count - i),
        expires_in_hours: 24,
      });
      left = current.max_uses;
    }
    const hostname = `${prefix}-${String(i).padStart(5, '0')}`;
    const enrolled = await hub.services.enrollment.enroll(ctx, {
      token: current.token,
      hostname,
      platform: 'linux',
      agent_version: 'sim-1',
    });
    left--;
    out.push({ assetId: enrolled.asset_id, credential: enrolled.credential, hostname });
  }
  return out;
}

export interface FleetOptions {
  /** Hub origin, e.g. https://127.0.0.1:8443 (loopback only). */
  origin: string;
  identities: readonly SimulatedAgentIdentity[];
  ca?: string;
  insecure?: boolean;
  handlers?: FakeHandlers;
  /** What each agent says it can do (default: the fake agent's, exec and metrics). */
  capabilities?: string[];
  /** Connections opened at once while starting (the rest wait their turn). */
  connectConcurrency?: number;
  heartbeatIntervalMs?: number;
  metricsIntervalMs?: number;
  reconnect?: boolean;
  /** Parts of the real agent's reconnect policy to change (tests make it fast). */
  backoff?: Partial<ReconnectPolicy>;
  /** Keep every connect attempt's start, end and outcome (connectLog), for the storm benchmark. */
  recordAttempts?: boolean;
  /** Offer each agent's last TLS session when it reconnects, as the real agent does (default true). */
  resumeTls?: boolean;
}

/** One connect attempt of one agent: wall-clock ms (Date.now), comparable across processes. */
export interface ConnectAttempt {
  agent: number;
  startedAt: number;
  endedAt: number;
  welcomed: boolean;
}

export interface FleetStats {
  connected: number;
  connecting: number;
  reconnects: number;
  connectFailures: number;
  requestsAnswered: number;
  /** Connections welcomed over TLS, and how many of them resumed a session (no full handshake). */
  tlsConnects: number;
  tlsResumed: number;
}

function sampleNow(): MetricSample {
  return {
    ts: new Date().toISOString(),
    cpu_percent: Math.random() * 100,
    memory_used_bytes: 2_000_000_000,
    memory_total_bytes: 8_000_000_000,
    disk_used_bytes: 50_000_000_000,
    disk_total_bytes: 200_000_000_000,
    load1: Math.random() * 2,
    net_rx_bytes: 1_000_000,
    net_tx_bytes: 500_000,
  };
}

export class FleetSimulator {
  private readonly agents = new Map<string, FakeAgent>();
  /** Each agent's reconnect state, as the real agent keeps it. */
  private readonly backoffs = new Map<string, ReconnectBackoff>();
  private readonly policy: ReconnectPolicy;
  private readonly attemptLog: ConnectAttempt[] = [];
  private readonly agentIndex = new Map<string, number>();
  private readonly timers: NodeJS.Timeout[] = [];
  private stopped = false;
  /** One TLS context for every agent of the fleet (see FakeAgentOptions.secureContext). */
  private readonly secureContext: SecureContext | undefined;
  readonly stats: FleetStats = {
    connected: 0,
    connecting: 0,
    reconnects: 0,
    connectFailures: 0,
    requestsAnswered: 0,
    tlsConnects: 0,
    tlsResumed: 0,
  };
  /** Each agent's last TLS session, by asset id. */
  private readonly tlsSessions = new Map<string, Buffer>();

  constructor(private readonly options: FleetOptions) {
    if (!/^https?:\/\/(127\.|localhost|\[::1\])/.test(options.origin)) {
      throw new Error(`the fleet simulator only connects to loopback, not ${options.origin}`);
    }
    this.secureContext = options.ca ? createSecureContext({ ca: options.ca }) : undefined;
    this.policy = { ...agentReconnectPolicy, ...options.backoff };
    for (const [index, identity] of options.identities.entries())
      this.agentIndex.set(identity.assetId, index);
  }

  /** Every connect attempt so far (recordAttempts), oldest first. */
  connectLog(): readonly ConnectAttempt[] {
    return this.attemptLog;
  }

  /** Connects every agent; resolves when each has either been welcomed or failed once. */
  async start(): Promise<{ connected: number; failed: number; ms: number }> {
    const started = performance.now();
    const queue = [...this.options.identities];
    const concurrency = this.options.connectConcurrency ?? 200;
    let failed = 0;
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        if (!(await this.connect(next))) failed++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
    this.startTimers();
    return { connected: this.stats.connected, failed, ms: performance.now() - started };
  }

  /** Agents currently welcomed. */
  connectedCount(): number {
    return this.stats.connected;
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    for (const agent of this.agents.values()) agent.close();
    this.agents.clear();
  }

  private wsUrl(): string {
    return this.options.origin.replace(/^http/, 'ws') + agentChannelPath;
  }

  private async connect(identity: SimulatedAgentIdentity): Promise<boolean> {
    if (this.stopped) return false;
    this.stats.connecting++;
    const handlers: FakeHandlers = {
      'exec.run': (payload) => {
        this.stats.requestsAnswered++;
        return echoExec(payload);
      },
      ...this.options.handlers,
    };
    const session = this.options.resumeTls === false ? undefined : this.tlsSessions.get(identity.assetId);
    const startedAt = Date.now();
    const record = (welcomed: boolean) => {
      if (!this.options.recordAttempts) return;
      const agentNumber = this.agentIndex.get(identity.assetId) ?? -1;
      this.attemptLog.push({ agent: agentNumber, startedAt, endedAt: Date.now(), welcomed });
    };
    const agent = new FakeAgent({
      // As the real agent: an upgrade that does not complete in 15 s is a failed attempt.
      handshakeTimeoutMs: 15_000,
      url: this.wsUrl(),
      credential: identity.credential,
      ...(session ? { session } : {}),
      ...(this.secureContext ? { secureContext: this.secureContext } : {}),
      ...(this.options.insecure ? { insecure: true } : {}),
      hello: {
        hostname: identity.hostname,
        ...(this.options.capabilities ? { capabilities: this.options.capabilities } : {}),
      },
      handlers,
    });
    try {
      await agent.start();
      record(true);
      this.stats.connecting--;
      this.stats.connected++;
      if (agent.tlsResumed !== null) {
        this.stats.tlsConnects++;
        if (agent.tlsResumed) this.stats.tlsResumed++;
      }
      if (agent.tlsSession) this.tlsSessions.set(identity.assetId, agent.tlsSession);
      this.backoffOf(identity.assetId).welcomed();
      this.agents.set(identity.assetId, agent);
      void agent.closed().then(() => {
        this.stats.connected--;
        this.agents.delete(identity.assetId);
        this.scheduleReconnect(identity, 'lost');
      });
      return true;
    } catch (error) {
      record(false);
      this.stats.connecting--;
      this.stats.connectFailures++;
      agent.close();
      // As the real agent: a refused connect means the hub is down; anything else, that it is busy.
      // A busy hub's Retry-After is honoured as the real agent does (decision 0102).
      const refused = (error as NodeJS.ErrnoException).code === 'ECONNREFUSED';
      const retryAfterMs = error instanceof UpgradeRefusedError ? error.retryAfterMs : null;
      this.scheduleReconnect(identity, refused ? 'down' : 'busy', retryAfterMs);
      return false;
    }
  }

  private backoffOf(assetId: string): ReconnectBackoff {
    let backoff = this.backoffs.get(assetId);
    if (!backoff) {
      backoff = new ReconnectBackoff(this.policy);
      this.backoffs.set(assetId, backoff);
    }
    return backoff;
  }

  private scheduleReconnect(
    identity: SimulatedAgentIdentity,
    cause: ReconnectCause,
    retryAfterMs: number | null = null,
  ): void {
    if (this.stopped || this.options.reconnect === false) return;
    const delay = this.backoffOf(identity.assetId).next(cause, Date.now(), retryAfterMs);
    setTimeout(() => {
      this.stats.reconnects++;
      void this.connect(identity);
    }, delay).unref();
  }

  /**
   * Real agents heartbeat on their own phase (from when each connected), not all in the same millisecond. One
   * shared timer ticks every 250 ms and serves the next slice of agents, so each agent still sends once per
   * interval, spread evenly over it.
   */
  private startTimers(): void {
    const tickMs = 250;
    const spread = (intervalMs: number | undefined, send: (agent: FakeAgent) => void) => {
      if (!intervalMs) return;
      let cursor = 0;
      this.timers.push(
        setInterval(() => {
          const agents = [...this.agents.values()];
          if (agents.length === 0) return;
          const slice = Math.max(1, Math.ceil((agents.length * tickMs) / intervalMs));
          for (let i = 0; i < slice; i++) {
            const agent = agents[(cursor + i) % agents.length];
            if (agent) send(agent);
          }
          cursor = (cursor + slice) % agents.length;
        }, tickMs),
      );
    };
    spread(this.options.heartbeatIntervalMs, (agent) => {
      agent.heartbeat();
    });
    spread(this.options.metricsIntervalMs, (agent) => {
      agent.metrics([sampleNow()]);
    });
    for (const t of this.timers) t.unref();
  }
}
