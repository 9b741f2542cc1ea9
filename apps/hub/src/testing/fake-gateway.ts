/**
 * An in-memory AgentGateway for unit tests: register an asset as connected with one handler per request
 * type. Every call is recorded (so a test can assert that nothing ran), and payloads and results are checked
 * against the message catalog, as the real gateway and agent would: a service that sends a payload the agent
 * would refuse fails its test here.
 */
import { Value } from 'typebox/value';
import {
  agentRequests,
  type AgentRequestPayload,
  type AgentRequestResult,
  type AgentRequestType,
  type Hello,
} from '@svc/protocol';
import {
  AgentOfflineError,
  type AgentGateway,
  type AgentRequestOptions,
  type AgentSessionInfo,
} from '../agents/agent-gateway.js';

export type FakeHandler<T extends AgentRequestType> = (
  payload: AgentRequestPayload<T>,
  call: { assetId: string; options: AgentRequestOptions },
) => AgentRequestResult<T> | Promise<AgentRequestResult<T>>;

export type FakeHandlers = { [T in AgentRequestType]?: FakeHandler<T> };

export interface FakeCall {
  assetId: string;
  type: AgentRequestType;
  payload: unknown;
  options: AgentRequestOptions;
}

export interface FakeAgentOptions {
  handlers?: FakeHandlers;
  hello?: Partial<Hello>;
  remoteAddress?: string | null;
  connectedAt?: Date;
}

interface FakeSession {
  info: AgentSessionInfo;
  handlers: FakeHandlers;
}

export function fakeHello(overrides: Partial<Hello> = {}): Hello {
  return {
    agent_version: '0.0.0-test',
    protocol: 1,
    hostname: 'fake-host',
    platform: 'linux',
    os_release: 'Test Linux',
    arch: 'x64',
    ip_addresses: [],
    mac_addresses: [],
    capabilities: ['exec', 'files', 'processes', 'services', 'system', 'logs', 'power', 'wol', 'metrics'],
    low_power: false,
    ...overrides,
  };
}

export class FakeGateway implements AgentGateway {
  readonly calls: FakeCall[] = [];
  private readonly live = new Map<string, FakeSession>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  /** Marks the asset connected; later handlers for the same asset replace earlier ones. */
  connect(assetId: string, options: FakeAgentOptions = {}): void {
    const at = options.connectedAt ?? this.now();
    this.live.set(assetId, {
      info: {
        assetId,
        connectedAt: at,
        lastSeenAt: at,
        remoteAddress: options.remoteAddress ?? '127.0.0.1',
        hello: fakeHello(options.hello),
      },
      handlers: options.handlers ?? {},
    });
  }

  /** Replaces or adds one handler of a connected asset. */
  handle<T extends AgentRequestType>(assetId: string, type: T, handler: FakeHandler<T>): void {
    const session = this.live.get(assetId);
    if (!session) throw new Error(`fake agent ${assetId} is not connected`);
    (session.handlers as Record<string, unknown>)[type] = handler;
  }

  callsOf(type?: AgentRequestType): FakeCall[] {
    return type ? this.calls.filter((c) => c.type === type) : [...this.calls];
  }

  isConnected(assetId: string): boolean {
    return this.live.has(assetId);
  }

  connectedCount(): number {
    return this.live.size;
  }

  session(assetId: string): AgentSessionInfo | null {
    return this.live.get(assetId)?.info ?? null;
  }

  sessions(): AgentSessionInfo[] {
    return [...this.live.values()].map((s) => s.info);
  }

  async request<T extends AgentRequestType>(
    assetId: string,
    type: T,
    payload: AgentRequestPayload<T>,
    options: AgentRequestOptions = {},
  ): Promise<AgentRequestResult<T>> {
    this.calls.push({ assetId, type, payload, options });
    const session = this.live.get(assetId);
    if (!session) throw new AgentOfflineError(assetId);
    const catalog = agentRequests[type];
    if (!Value.Check(catalog.payload, payload)) {
      throw new Error(
        `fake agent: the hub sent a ${type} payload the catalog refuses: ${JSON.stringify(payload)}`,
      );
    }
    const handler: FakeHandler<T> | undefined = session.handlers[type];
    if (!handler) throw new Error(`fake agent ${assetId} has no handler for ${type}`);
    const result = await handler(payload, { assetId, options });
    if (!Value.Check(catalog.result, result)) {
      throw new Error(`fake agent: the ${type} handler returned a result the catalog refuses`);
    }
    return result;
  }

  disconnect(assetId: string): void {
    this.live.delete(assetId);
  }
}
