import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@svc/hub';
import type { EventEnvelope } from '@svc/protocol';
import { startTestHub, type TestHub } from '@svc/testkit';
import { eventStreamUrl, subscribeEvents, type EventStreamStatus, type WebSocketLike } from './index.js';

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i += 1) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`not within 5 s: ${what}`);
}

describe('subscribeEvents against a listening hub (Node global WebSocket, bearer key)', () => {
  let t: TestHub;
  let baseUrl: string;

  beforeAll(async () => {
    t = await startTestHub({ listen: true, clock: new ManualClock(new Date()) });
    baseUrl = `http://127.0.0.1:${t.servers?.httpPort ?? 0}`;
  });
  afterAll(async () => {
    await t.close();
  });

  it('delivers the events of the asked types; a revoked key ends it for good (no retry)', async () => {
    const key = await t.createKey({ role: 'operator', scopes: ['events:subscribe'] });
    const received: EventEnvelope[] = [];
    const statuses: EventStreamStatus[] = [];
    const subscription = subscribeEvents({
      baseUrl,
      apiKey: key.raw_key,
      types: ['asset.created'],
      onEvent: (event) => received.push(event),
      onStatus: (status) => statuses.push(status),
    });
    await until(() => statuses.some((s) => s.state === 'open'), 'open');
    const asset = await t.createAsset({ name: 'via-sdk' });
    await until(() => received.length === 1, 'one event');
    expect(received[0]).toMatchObject({ type: 'asset.created', data: { asset_id: asset.id } });

    expect((await t.request('DELETE', `/api/v2/keys/${key.id}`)).status).toBe(200);
    await until(() => statuses.some((s) => s.state === 'closed'), 'closed');
    expect(statuses.at(-1)).toMatchObject({ state: 'closed', code: 4001, retryInMs: null });
    subscription.close();
  });
});

/** A socket the test drives by hand. */
class FakeSocket implements WebSocketLike {
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  closedByClient = false;
  close(): void {
    this.closedByClient = true;
  }
}

describe('subscribeEvents reconnects with backoff', () => {
  it('waits longer after each failed attempt, up to the ceiling, and starts over after an open', async () => {
    const sockets: FakeSocket[] = [];
    const statuses: EventStreamStatus[] = [];
    const subscription = subscribeEvents({
      baseUrl: 'https://hub.example:8443',
      onEvent: () => undefined,
      onStatus: (status) => statuses.push(status),
      createSocket: () => {
        const socket = new FakeSocket();
        sockets.push(socket);
        return socket;
      },
      backoff: { initialMs: 1, maxMs: 4 },
      random: () => 1,
    });
    for (let attempt = 0; attempt < 4; attempt += 1) {
      await until(() => sockets.length === attempt + 1, `attempt ${attempt + 1}`);
      sockets[attempt]?.onclose?.({ code: 1006, reason: '' });
    }
    const waits = statuses.flatMap((s) => (s.state === 'closed' ? [s.retryInMs] : []));
    expect(waits).toEqual([2, 4, 4, 4]);
    await until(() => sockets.length === 5, 'attempt 5');
    sockets[4]?.onopen?.({});
    expect(statuses.at(-1)).toEqual({ state: 'open', reconnected: false });
    sockets[4]?.onclose?.({ code: 4008, reason: 'slow client' });
    expect(statuses.at(-1)).toMatchObject({ state: 'closed', code: 4008, retryInMs: 1 });
    await until(() => sockets.length === 6, 'attempt 6');
    sockets[5]?.onopen?.({});
    expect(statuses.at(-1)).toEqual({ state: 'open', reconnected: true });
    subscription.close();
    expect(sockets[5]?.closedByClient).toBe(true);
  });

  it('builds wss:// for an https hub and ws:// for http, with the types', () => {
    expect(eventStreamUrl('https://hub:8443', ['asset.created', 'asset.deleted'])).toBe(
      'wss://hub:8443/api/v2/events/stream?types=asset.created%2Casset.deleted',
    );
    expect(eventStreamUrl('http://127.0.0.1:8080')).toBe('ws://127.0.0.1:8080/api/v2/events/stream');
  });
});
