/** The Portainer client against the fake Portainer: paging, filters, and every failure mode. */
import { afterEach, describe, expect, it } from 'vitest';
import { startFakePortainer, type FakePortainer } from '@svc/testkit';
import { UpstreamError } from '../base/upstream-error.js';
import { upstreamContextFor } from '../../testing/fake-upstream-context.js';
import { endpointStacks, stacksDriver } from './stacks.connector.js';
import { createPortainerClient } from './stacks.client.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function start(slowMs?: number): Promise<FakePortainer> {
  const fake = await startFakePortainer(slowMs ? { slowMs } : {});
  closers.push(() => fake.close());
  return fake;
}

function contextOf(fake: FakePortainer, over: { credentials?: string; timeoutMs?: number } = {}) {
  const ctx = upstreamContextFor(
    fake,
    { kind: 'stacks', credentials: over.credentials ?? fake.apiKey },
    over.timeoutMs ? { timeoutMs: over.timeoutMs } : {},
  );
  closers.push(() => ctx.client.close());
  return ctx;
}

async function failure(work: Promise<unknown>): Promise<UpstreamError> {
  const error = await work.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof UpstreamError)) throw new Error(`expected an UpstreamError, got ${String(error)}`);
  return error;
}

describe('Portainer client', () => {
  it('lists endpoints as assets, sending X-API-Key', async () => {
    const fake = await start();
    const ctx = contextOf(fake);
    await stacksDriver.check(ctx);
    expect(await stacksDriver.inventory(ctx)).toEqual([
      {
        externalId: 'endpoint/1',
        kind: 'stacks_endpoint',
        name: 'local',
        status: 'online',
        facts: { endpoint_id: 1, endpoint_type: 'docker', docker_version: '27.3.1', running_containers: 7 },
      },
      {
        externalId: 'endpoint/3',
        kind: 'stacks_endpoint',
        name: 'edge-pi',
        status: 'offline',
        facts: { endpoint_id: 3, endpoint_type: 'edge_agent' },
      },
    ]);
    expect(fake.requests.every((r) => r.headers['x-api-key'] === fake.apiKey)).toBe(true);
  });

  it('follows the endpoint pages to X-Total-Count, counting start from 1 as Portainer does', async () => {
    const fake = await start();
    for (let i = 10; i < 260; i += 1) {
      fake.endpoints.push({ ...fake.endpoints[0]!, Id: i, Name: `env-${String(i)}` });
    }
    const endpoints = await createPortainerClient(contextOf(fake)).endpoints();
    // Every endpoint once: a 0-based walk repeats the last item of each page (Portainer decrements `start`).
    expect(endpoints.map((e) => e.Id)).toEqual(fake.endpoints.map((e) => e.Id));
    const pages = fake.requests.filter((r) => r.path === '/api/endpoints').map((r) => r.query.get('start'));
    expect(pages).toEqual(['1', '101', '201']);
  });

  it("reads one endpoint's stacks, filtered by the upstream and again here", async () => {
    const fake = await start();
    const stacks = await endpointStacks(contextOf(fake), 1);
    expect(stacks.map((s) => [s.name, s.status, s.updated_at === null])).toEqual([
      ['media', 'active', false],
      ['monitoring', 'inactive', true],
    ]);
    expect(fake.requests.at(-1)?.query.get('filters')).toBe('{"EndpointID":1}');
  });

  it("passes on Portainer's message for a refused key", async () => {
    const fake = await start();
    const error = await failure(
      createPortainerClient(contextOf(fake, { credentials: 'ptr_wrong' })).version(),
    );
    expect(error.status).toBe(401);
    expect(error.message).toContain('A valid authorisation token is missing');
  });

  it.each([
    ['unauthorized', 'http', 401],
    ['server_error', 'http', 500],
    ['malformed', 'malformed', null],
  ] as const)('reports the %s failure mode', async (mode, kind, status) => {
    const fake = await start();
    fake.fail(mode);
    const error = await failure(endpointStacks(contextOf(fake), 1));
    expect(error.failure).toBe(kind);
    if (status !== null) expect(error.status).toBe(status);
  });

  it('gives up on a slow answer at the timeout, and refuses an unknown CA', async () => {
    const fake = await start(5_000);
    fake.fail('slow');
    expect((await failure(endpointStacks(contextOf(fake, { timeoutMs: 300 }), 1))).failure).toBe('timeout');
    fake.fail('unknown_ca');
    expect((await failure(endpointStacks(contextOf(fake), 1))).failure).toBe('tls');
  });
});
