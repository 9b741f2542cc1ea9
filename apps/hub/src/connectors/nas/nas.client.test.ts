/**
 * The TrueNAS client against the fake TrueNAS of each release line: JSON-RPC over WebSocket where
 * `/api/versions` exists, REST v2.0 where it does not, and every failure mode seen as an UpstreamError with
 * the reason a person can act on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeTruenas, type FakeTruenas, type TruenasRelease } from '@svc/testkit';
import { UpstreamError } from '../base/upstream-error.js';
import { upstreamContextFor } from '../../testing/fake-upstream-context.js';
import { nasDatasets, nasDriver, nasPools } from './nas.connector.js';
import { truenasReads } from './nas.client.js';

let fake: FakeTruenas | null = null;
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  fake = null;
});

async function start(release: TruenasRelease, slowMs?: number) {
  fake = await startFakeTruenas({ release, ...(slowMs ? { slowMs } : {}) });
  const f = fake;
  closers.push(() => f.close());
  return f;
}

function contextOf(
  f: FakeTruenas,
  over: { credentials?: string; username?: string; timeoutMs?: number; baseUrl?: string } = {},
) {
  const ctx = upstreamContextFor(
    f,
    {
      kind: 'nas',
      credentials: over.credentials ?? f.apiKey,
      ...(over.username ? { username: over.username } : {}),
      ...(over.baseUrl ? { baseUrl: over.baseUrl } : {}),
    },
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

describe.each([
  ['25.10', 'jsonrpc'],
  ['26.04', 'jsonrpc'],
  ['24.10', 'rest'],
] as const)('TrueNAS %s', (release, transport) => {
  it(`reads pools and datasets over ${transport}, sizes from parsed values, each dataset once`, async () => {
    const f = await start(release);
    const ctx = contextOf(f);
    expect((await truenasReads(ctx)).transport).toBe(transport);
    const pools = await nasPools(ctx);
    expect(pools.map((p) => [p.name, p.status, p.size_bytes, p.used_percent])).toEqual([
      ['backup', 'DEGRADED', 4e12, 87.5],
      ['tank', 'ONLINE', 8e12, 37.5],
    ]);
    const datasets = await nasDatasets(ctx);
    expect(datasets.map((d) => d.id)).toEqual([
      'backup',
      'backup/vault',
      'tank',
      'tank/apps',
      'tank/media',
      'tank/vm-disk',
    ]);
    expect(datasets.find((d) => d.id === 'tank/media')).toMatchObject({
      used_bytes: 2.2e12,
      type: 'filesystem',
    });
    expect(datasets.find((d) => d.id === 'backup/vault')).toMatchObject({ locked: true, mountpoint: null });
    expect(datasets.find((d) => d.id === 'tank/vm-disk')).toMatchObject({ type: 'volume' });
  });

  it('reports a refused key', async () => {
    const f = await start(release);
    const error = await failure(nasPools(contextOf(f, { credentials: '1-wrong' })));
    expect(error.message).toMatch(/refused the API key|Invalid API key/);
  });

  it.each(['unauthorized', 'server_error', 'malformed'] as const)(
    'reports the %s failure mode',
    async (mode) => {
      const f = await start(release);
      f.fail(mode);
      const error = await failure(nasPools(contextOf(f)));
      expect(error.failure).toBe(mode === 'malformed' ? 'malformed' : 'http');
      if (mode === 'unauthorized') expect(error.message).toMatch(/401|refused the API key/);
    },
  );

  it('gives up on a slow answer at the timeout', async () => {
    const f = await start(release, 5_000);
    f.fail('slow');
    const started = Date.now();
    const error = await failure(nasPools(contextOf(f, { timeoutMs: 300 })));
    expect(error.failure).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('refuses a certificate from an unknown CA', async () => {
    const f = await start(release);
    f.fail('unknown_ca');
    const error = await failure(nasPools(contextOf(f)));
    expect(error.failure).toBe('tls');
  });
});

describe('TrueNAS login and transport', () => {
  it('logs in with login_ex when the connector names the key owner', async () => {
    const f = await start('25.10');
    await nasPools(contextOf(f, { username: 'admin' }));
    expect(f.calls).toEqual(['auth.login_ex', 'pool.query']);
    await nasPools(contextOf(f));
    expect(f.calls.slice(2)).toEqual(['auth.login_with_api_key', 'pool.query']);
  });

  it('asks datasets for the few properties it shows', async () => {
    const f = await start('25.10');
    await nasDatasets(contextOf(f));
    expect(f.calls).toContain('pool.dataset.query');
  });

  it('never sends the key over plain http (TrueNAS would revoke it)', async () => {
    const f = await start('25.10');
    const error = await failure(nasPools(contextOf(f, { baseUrl: f.url().replace('https:', 'http:') })));
    expect(error.failure).toBe('refused');
    expect(f.requests).toEqual([]);
  });

  it('checks and lists the NAS as one asset', async () => {
    const f = await start('25.10');
    const ctx = contextOf(f);
    await nasDriver.check(ctx);
    expect(await nasDriver.inventory(ctx)).toEqual([
      expect.objectContaining({
        externalId: 'nas',
        kind: 'nas',
        status: 'online',
        facts: { api: 'jsonrpc', pools: 2, degraded_pools: 1 },
      }),
    ]);
  });
});
