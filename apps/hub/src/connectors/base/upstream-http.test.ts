/**
 * The connector HTTP seam against a fake upstream over real TLS: each TLS mode, each failure mode, the egress
 * guard at connect time, and retries for reads only.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startUpstreamServer, type FakeUpstreamServer } from '@svc/testkit';
import { defaultOutboundPolicy, type OutboundPolicy } from '../../platform/outbound/address-policy.js';
import type { ResolvedAddress, Resolver } from '../../platform/outbound/guarded-lookup.js';
import { createOutboundClient, type OutboundClient } from '../../platform/outbound/outbound-client.js';
import { outboundTlsOf, tlsProblem, type ConnectorTls } from './connector-tls.js';
import { UpstreamError } from './upstream-error.js';
import { createUpstreamHttp, parseUpstream } from './upstream-http.js';
import { Type } from 'typebox';

const loopback: OutboundPolicy = { ...defaultOutboundPolicy, allowLoopback: true };
const resolver: Resolver = (host) => {
  const answer: ResolvedAddress = { address: '127.0.0.1', family: 4 };
  return host === 'upstream.test' || host === 'localhost'
    ? Promise.resolve([answer])
    : Promise.reject(new Error(`ENOTFOUND ${host}`));
};

let fake: FakeUpstreamServer;
const clients: OutboundClient[] = [];

function clientFor(tls: ConnectorTls, policy: OutboundPolicy = loopback): OutboundClient {
  const client = createOutboundClient({ policy, resolver, ...outboundTlsOf(tls) });
  clients.push(client);
  return client;
}

function http(tls: ConnectorTls, extra: { policy?: OutboundPolicy; timeoutMs?: number } = {}) {
  const client = clientFor(tls, extra.policy);
  return createUpstreamHttp({
    client: () => client,
    baseUrl: `https://upstream.test:${String(fake.port)}/api`,
    timeoutMs: extra.timeoutMs ?? 2_000,
    retryDelayMs: 10,
  });
}

async function failureOf(work: Promise<unknown>): Promise<UpstreamError> {
  try {
    await work;
  } catch (error) {
    expect(error).toBeInstanceOf(UpstreamError);
    return error as UpstreamError;
  }
  throw new Error('expected an UpstreamError');
}

const pinned = (): ConnectorTls => ({ mode: 'pinned_ca', ca: fake.ca, fingerprint: null });

beforeAll(async () => {
  fake = await startUpstreamServer({
    names: ['upstream.test'],
    slowMs: 5_000,
    failures: {
      unauthorized: { status: 401, statusText: 'No ticket' },
      server_error: { status: 500, statusText: 'VM 100 already running', body: { data: null } },
    },
    handle: (request) => ({ status: 200, body: { data: { path: request.path } } }),
  });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await fake.close();
});

beforeEach(() => {
  fake.fail(null);
});

describe('TLS modes', () => {
  it('trusts a pinned CA and reads JSON under the base path', async () => {
    expect(await http(pinned()).getJson('/version')).toEqual({ data: { path: '/api/version' } });
  });

  it('refuses a certificate the system pool does not trust', async () => {
    const failure = await failureOf(http({ mode: 'system', ca: null, fingerprint: null }).getJson('/x'));
    expect(failure.failure).toBe('tls');
  });

  it('accepts the pinned fingerprint and refuses another certificate before sending anything', async () => {
    const tls: ConnectorTls = { mode: 'fingerprint', ca: null, fingerprint: fake.fingerprint.toUpperCase() };
    expect(await http(tls).getJson('/fp')).toEqual({ data: { path: '/api/fp' } });
    fake.fail('unknown_ca');
    const before = fake.requests.length;
    const failure = await failureOf(http(tls).getJson('/fp'));
    expect(failure.failure).toBe('tls');
    expect(failure.message).toContain('fingerprint');
    expect(fake.requests.length).toBe(before);
  });

  it('refuses a certificate from an unknown CA in pinned_ca mode', async () => {
    fake.fail('unknown_ca');
    const failure = await failureOf(http(pinned()).getJson('/x'));
    expect(failure.failure).toBe('tls');
  });

  it('skips verification only in insecure mode', async () => {
    fake.fail('unknown_ca');
    const tls: ConnectorTls = { mode: 'insecure', ca: null, fingerprint: null };
    expect(await http(tls).getJson('/any')).toEqual({ data: { path: '/api/any' } });
  });

  it('names what is missing from a TLS choice', () => {
    expect(tlsProblem({ mode: 'pinned_ca', ca: null, fingerprint: null })?.field).toBe('tls_ca');
    expect(tlsProblem({ mode: 'pinned_ca', ca: 'not pem', fingerprint: null })?.problem).toContain('PEM');
    expect(tlsProblem({ mode: 'fingerprint', ca: null, fingerprint: null })?.field).toBe('tls_fingerprint');
    expect(tlsProblem({ mode: 'pinned_ca', ca: fake.ca, fingerprint: null })).toBeNull();
  });
});

describe('failures', () => {
  it('401 with an empty body: the reason phrase is the reason', async () => {
    fake.fail('unauthorized');
    const failure = await failureOf(http(pinned()).getJson('/x'));
    expect(failure).toMatchObject({ failure: 'http', status: 401, message: 'HTTP 401 No ticket' });
  });

  it('5xx carries status and reason, and is not retried', async () => {
    fake.fail('server_error');
    const before = fake.requests.length;
    const failure = await failureOf(http(pinned()).getJson('/x'));
    expect(failure).toMatchObject({ status: 500, message: 'HTTP 500 VM 100 already running' });
    expect(fake.requests.length - before).toBe(1);
  });

  it('slow answers time out; reads are retried a bounded number of times', async () => {
    fake.fail('slow');
    const before = fake.requests.length;
    const failure = await failureOf(http(pinned(), { timeoutMs: 200 }).getJson('/slow'));
    expect(failure.failure).toBe('timeout');
    expect(fake.requests.length - before).toBe(3);
  });

  it('a change is sent once even when it times out', async () => {
    fake.fail('slow');
    const before = fake.requests.length;
    const failure = await failureOf(http(pinned(), { timeoutMs: 200 }).sendJson('POST', '/start'));
    expect(failure.failure).toBe('timeout');
    expect(fake.requests.length - before).toBe(1);
  });

  it('malformed JSON is a malformed answer, and so is a shape the schema refuses', async () => {
    fake.fail('malformed');
    expect((await failureOf(http(pinned()).getJson('/x'))).failure).toBe('malformed');
    const failure = await failureOf(
      Promise.resolve().then(() =>
        parseUpstream(Type.Object({ data: Type.Array(Type.String()) }), { data: 1 }, 'test'),
      ),
    );
    expect(failure.message).toContain('/data');
  });

  it('a loopback upstream is refused at connect time without the opt-in', async () => {
    const failure = await failureOf(http(pinned(), { policy: defaultOutboundPolicy }).getJson('/x'));
    expect(failure.failure).toBe('refused');
    expect(failure.message).toContain('egress guard');
  });
});
