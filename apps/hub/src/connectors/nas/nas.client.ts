/**
 * TrueNAS through the connector's egress client: JSON-RPC 2.0 over a WebSocket (`/api/current`) on 25.04 and
 * later, the REST API v2.0 on older releases (CORE 13, SCALE 24.10) — chosen by `GET /api/versions`, which
 * exists only where JSON-RPC does. A plain API key sent over `ws://` or `http://` is revoked by TrueNAS on the
 * spot, so the key is never sent over either, whatever the insecure-transport opt-in says.
 */
import type { TSchema, Static } from 'typebox';
import type { WebSocket } from 'ws';
import type { UpstreamContext } from '../base/connector.js';
import { UpstreamError } from '../base/upstream-error.js';
import { parseUpstream, transportFailure } from '../base/upstream-http.js';
import { hasJsonRpc } from './nas.mapping.js';
import {
  JsonRpcAnswer,
  TruenasDatasets,
  TruenasLoginEx,
  TruenasLoginResult,
  TruenasPools,
  TruenasVersions,
  type TruenasDataset,
  type TruenasPool,
} from './nas.upstream.js';

type TruenasTransport = 'jsonrpc' | 'rest';

export interface TruenasReads {
  transport: TruenasTransport;
  pools(): Promise<TruenasPool[]>;
  datasets(): Promise<TruenasDataset[]>;
}

/** The few properties shown: an unfiltered dataset query is heavy (every ZFS property of every dataset). */
const datasetOptions = { extra: { flat: true, properties: ['used', 'available', 'mountpoint'] } };

function refuseInsecure(url: URL): void {
  if (url.protocol !== 'https:') {
    throw new UpstreamError(
      'refused',
      'TrueNAS revokes an API key sent over plain HTTP or ws://: use an https:// address',
    );
  }
}

/** Which API the release speaks; `/api/versions` needs no credential. */
async function detectTransport(ctx: UpstreamContext): Promise<TruenasTransport> {
  refuseInsecure(new URL(ctx.connector.baseUrl));
  const answer = await ctx.http().send('GET', '/api/versions');
  if (answer.status === 404) return 'rest';
  if (answer.status < 200 || answer.status >= 300) {
    throw new UpstreamError('http', `HTTP ${String(answer.status)} from /api/versions`, answer.status);
  }
  let versions: unknown;
  try {
    versions = JSON.parse(answer.text);
  } catch {
    throw new UpstreamError('malformed', 'TrueNAS /api/versions is not JSON');
  }
  return hasJsonRpc(parseUpstream(TruenasVersions, versions, 'TrueNAS versions')) ? 'jsonrpc' : 'rest';
}

/** One JSON-RPC session: login, then calls, each answered by id within the connector's timeout. */
class JsonRpcSession {
  private nextId = 1;
  private readonly waiting = new Map<number, (answer: JsonRpcAnswer | UpstreamError) => void>();

  constructor(
    private readonly socket: WebSocket,
    private readonly timeoutMs: number,
  ) {
    socket.on('message', (data: Buffer) => {
      let answer: JsonRpcAnswer;
      try {
        answer = parseUpstream(JsonRpcAnswer, JSON.parse(data.toString('utf8')), 'TrueNAS JSON-RPC');
      } catch {
        this.failAll(new UpstreamError('malformed', 'TrueNAS sent a message that is not JSON-RPC'));
        return;
      }
      if (typeof answer.id !== 'number') return;
      this.waiting.get(answer.id)?.(answer);
    });
    socket.on('close', () => {
      this.failAll(new UpstreamError('network', 'TrueNAS closed the WebSocket'));
    });
    socket.on('error', () => {
      this.failAll(new UpstreamError('network', 'TrueNAS WebSocket failed'));
    });
  }

  private failAll(error: UpstreamError): void {
    for (const resolve of this.waiting.values()) resolve(error);
    this.waiting.clear();
  }

  async call<T extends TSchema>(method: string, params: unknown[], schema: T): Promise<Static<T>> {
    const id = this.nextId;
    this.nextId += 1;
    const answer = await new Promise<JsonRpcAnswer | UpstreamError>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve(new UpstreamError('timeout', `TrueNAS did not answer ${method} in time`));
      }, this.timeoutMs);
      this.waiting.set(id, (value) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(value);
      });
      this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
    if (answer instanceof UpstreamError) throw answer;
    if (answer.error) {
      const reason = answer.error.data?.reason ?? answer.error.message;
      throw new UpstreamError('http', `TrueNAS ${method}: ${reason}`);
    }
    return parseUpstream(schema, answer.result, `TrueNAS ${method}`);
  }

  close(): void {
    this.socket.terminate();
  }
}

async function openSession(ctx: UpstreamContext): Promise<JsonRpcSession> {
  const url = new URL(ctx.connector.baseUrl);
  refuseInsecure(url);
  url.protocol = 'wss:';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/api/current`;
  let socket: WebSocket;
  try {
    socket = await ctx
      .outbound()
      .webSocket(url, { handshakeTimeoutMs: ctx.timeoutMs, maxPayload: 16 * 1024 * 1024 });
  } catch (error) {
    const status = /Unexpected server response: (\d+)/.exec(error instanceof Error ? error.message : '');
    if (status) {
      throw new UpstreamError(
        'http',
        `TrueNAS refused the WebSocket: HTTP ${status[1] ?? ''}`,
        Number(status[1]),
      );
    }
    throw transportFailure(error, url.hostname);
  }
  const session = new JsonRpcSession(socket, ctx.timeoutMs);
  try {
    const key = ctx.connector.credentials;
    // login_ex needs the key's owner; login_with_api_key (deprecated, removed in 27) does without.
    const accepted = ctx.connector.username
      ? (
          await session.call(
            'auth.login_ex',
            [{ mechanism: 'API_KEY_PLAIN', username: ctx.connector.username, api_key: key }],
            TruenasLoginEx,
          )
        ).response_type === 'SUCCESS'
      : await session.call('auth.login_with_api_key', [key], TruenasLoginResult);
    if (!accepted) throw new UpstreamError('http', 'TrueNAS refused the API key', 401);
    return session;
  } catch (error) {
    session.close();
    throw error;
  }
}

/** Reads over JSON-RPC: one session per read, closed after it. */
function jsonRpcReads(ctx: UpstreamContext): TruenasReads {
  const withSession = async <T>(work: (session: JsonRpcSession) => Promise<T>): Promise<T> => {
    const session = await openSession(ctx);
    try {
      return await work(session);
    } finally {
      session.close();
    }
  };
  return {
    transport: 'jsonrpc',
    pools: () => withSession((s) => s.call('pool.query', [[], {}], TruenasPools)),
    datasets: () => withSession((s) => s.call('pool.dataset.query', [[], datasetOptions], TruenasDatasets)),
  };
}

function restReads(ctx: UpstreamContext): TruenasReads {
  const http = ctx.http({ headers: { authorization: `Bearer ${ctx.connector.credentials}` } });
  return {
    transport: 'rest',
    pools: async () => parseUpstream(TruenasPools, await http.getJson('/api/v2.0/pool'), 'TrueNAS pools'),
    datasets: async () =>
      parseUpstream(TruenasDatasets, await http.getJson('/api/v2.0/pool/dataset'), 'TrueNAS datasets'),
  };
}

export async function truenasReads(ctx: UpstreamContext): Promise<TruenasReads> {
  return (await detectTransport(ctx)) === 'jsonrpc' ? jsonRpcReads(ctx) : restReads(ctx);
}
