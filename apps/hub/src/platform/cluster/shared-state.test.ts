/**
 * What lived in one process's memory works across processes (decision 0044), with two hub processes on one
 * PostgreSQL schema and one (in-memory) cluster network: a sign-in's second step on another process than its
 * first, a TLS certificate uploaded on one served by the other, and one notification digest per window for
 * alerts raised on both. Needs SVC_TEST_DATABASE_URL.
 */
import { X509Certificate } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { LoginResult, NotificationChannel, User } from '@svc/protocol';
import { tlsRequest, type InjectResult, type TestHub, type TestHubOptions } from '@svc/testkit';
import { ManualClock } from '../clock.js';
import { writeSetting } from '../db/key-values.js';
import { createCertificateAuthority, issueServerCertificate } from '../tls/certificates.js';
import { totpPeriodSeconds } from '../../modules/auth/totp.js';
import { createDigestStore } from '../../modules/notifications/digest-store.js';
import { alertPayload } from '../../testing/alert-payload.js';
import {
  enableTwoFactor,
  sessionCookieOf,
  totpCodeNow,
  wrongTotpCode,
} from '../../testing/two-factor-user.js';
import { sharedPostgresUrl } from '../../testing/shared-database.js';
import { startReceiver, until, type Receiver } from '../../testing/webhook-receiver.js';
import type { Resolver } from '../outbound/guarded-lookup.js';
import { closeProcesses, startTwoProcesses } from '../../testing/two-processes.js';

const url = sharedPostgresUrl();

describe.skipIf(url === null)('per-process state shared by two hub processes (postgres)', () => {
  const hubs: TestHub[] = [];

  afterEach(async () => {
    await closeProcesses(hubs);
  });

  const twoProcesses = (extra: TestHubOptions = {}) => startTwoProcesses(url ?? '', hubs, extra);

  describe('TOTP sign-in challenges', () => {
    let address = 0;
    const stepMs = totpPeriodSeconds * 1000;

    /** A user with 2FA on (set up through A); returns its password and TOTP secret. */
    async function twoFactorUser(
      a: TestHub,
    ): Promise<{ username: string; password: string; secret: string }> {
      const username = 'tess';
      const password = 'tess password 1';
      const created = await a.request('POST', '/api/auth/users', {
        body: { username, password, role: 'operator' },
      });
      expect(created.status, created.text).toBe(201);
      expect((created.json.data as User).username).toBe(username);
      const signedIn = await passwordStep(a, username, password);
      const { secret, recoveryCodes } = await enableTwoFactor(a, sessionCookieOf(signedIn) ?? '');
      expect(recoveryCodes).toHaveLength(8);
      return { username, password, secret };
    }

    /** Each sign-in from its own address: the sign-in throttle is not what these tests are about. */
    function passwordStep(hub: TestHub, username: string, password: string): Promise<InjectResult> {
      address += 1;
      return hub.request('POST', '/api/auth/login', {
        key: null,
        body: { username, password },
        remoteAddress: `127.0.1.${String(address)}`,
      });
    }

    async function challengeOn(hub: TestHub, user: { username: string; password: string }): Promise<string> {
      const res = await passwordStep(hub, user.username, user.password);
      expect(res.status, res.text).toBe(200);
      const result = res.json.data as LoginResult;
      expect(result.requires_2fa).toBe(true);
      return result.challenge_token ?? '';
    }

    function codeStep(hub: TestHub, token: string, code: string): Promise<InjectResult> {
      return hub.request('POST', '/api/auth/login/2fa', {
        key: null,
        body: { challenge_token: token, code },
      });
    }

    it('completes on B a sign-in started on A, once; the token is refused again on either', async () => {
      const { a, b } = await twoProcesses();
      const user = await twoFactorUser(a);
      const token = await challengeOn(a, user);

      const done = await codeStep(b, token, totpCodeNow(b.clock, user.secret));
      expect(done.status, done.text).toBe(200);
      expect(sessionCookieOf(done)).toMatch(/^svc_session=/);

      b.clock.advance(stepMs);
      for (const hub of [a, b]) {
        const replay = await codeStep(hub, token, totpCodeNow(hub.clock, user.secret));
        expect(replay.status).toBe(401);
        expect(replay.json.message).toContain('sign in again');
      }
      // Only a hash of the token is stored.
      const rows = await a.hub.database.db.selectFrom('sign_in_challenges').selectAll().execute();
      expect(JSON.stringify(rows)).not.toContain(token);
    });

    it('locks a challenge after five wrong codes spread over A and B', async () => {
      const { a, b } = await twoProcesses();
      const user = await twoFactorUser(a);
      const token = await challengeOn(b, user);
      for (let i = 0; i < 5; i++) {
        const hub = i % 2 === 0 ? a : b;
        const res = await codeStep(hub, token, wrongTotpCode(hub.clock, user.secret));
        expect(res.status).toBe(401);
      }
      // Each process saw at most three wrong codes: only the shared count locks the challenge.
      const late = await codeStep(a, token, totpCodeNow(a.clock, user.secret));
      expect(late.status).toBe(401);
      expect(late.json.message).toContain('sign in again');
      const left = await a.hub.database.db.selectFrom('sign_in_challenges').selectAll().execute();
      expect(left).toHaveLength(0);
    });

    it('lets one of parallel attempts on A and B with the valid code through', async () => {
      const { a, b } = await twoProcesses();
      const user = await twoFactorUser(a);
      const token = await challengeOn(a, user);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          codeStep(i % 2 === 0 ? a : b, token, totpCodeNow(a.clock, user.secret)),
        ),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.every((r) => [200, 401, 409].includes(r.status))).toBe(true);
    });

    it('refuses the 11th code on either process after 10 wrong ones spread over A and B, until 15 minutes pass', async () => {
      const { a, b } = await twoProcesses();
      const user = await twoFactorUser(a);
      // Two challenges, five wrong codes each, alternating between the processes.
      let n = 0;
      for (const opener of [a, b]) {
        const token = await challengeOn(opener, user);
        for (let i = 0; i < 5; i++) {
          const hub = n++ % 2 === 0 ? a : b;
          const res = await codeStep(hub, token, wrongTotpCode(hub.clock, user.secret));
          expect(res.status, res.text).toBe(401);
        }
      }
      for (const hub of [a, b]) {
        const limited = await codeStep(
          hub,
          await challengeOn(hub, user),
          totpCodeNow(hub.clock, user.secret),
        );
        expect(limited.status, limited.text).toBe(429);
        // The error one process alone gives at its limit.
        expect(limited.json.error).toBe('rate_limited');
        expect(limited.json.message).toBe('Too many wrong codes; wait a few minutes.');
        expect(Number(limited.headers['retry-after'])).toBe(900);
        expect(sessionCookieOf(limited)).toBeNull();
      }
      const slots = await a.hub.database.db.selectFrom('two_factor_failures').selectAll().execute();
      expect(slots).toHaveLength(10);

      a.clock.advance(15 * 60 * 1000);
      const run = await b.hub.retention.runOnce();
      expect(run.deleted.two_factor_failures).toBe(10);
      const after = await codeStep(b, await challengeOn(a, user), totpCodeNow(b.clock, user.secret));
      expect(after.status, after.text).toBe(200);
      expect(sessionCookieOf(after)).toMatch(/^svc_session=/);
    });

    it('purges expired challenges', async () => {
      const { a, b } = await twoProcesses();
      const user = await twoFactorUser(a);
      await challengeOn(a, user);
      await challengeOn(b, user);
      a.clock.advance(6 * 60 * 1000);
      const run = await a.hub.retention.runOnce();
      expect(run.deleted.sign_in_challenges).toBe(2);
    });
  });

  describe('TLS override uploads', () => {
    /** The SHA-256 fingerprint of the certificate a hub serves now, read from a real TLS handshake. */
    async function servedFingerprint(hub: TestHub): Promise<string> {
      const port = hub.servers?.httpsPort ?? 0;
      return (await tlsRequest(`https://localhost:${String(port)}/api/v1/tls/info`, { insecure: true })).peer
        .fingerprint256;
    }

    async function within(deadlineMs: number, check: () => Promise<boolean>): Promise<void> {
      const started = performance.now();
      for (let i = 0; i < 500 && performance.now() - started < deadlineMs; i++) {
        if (await check()) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`not within ${String(deadlineMs)} ms`);
    }

    it('serves on B, at once, a certificate uploaded on A, and the built-in one again once cleared', async () => {
      const { a, b } = await twoProcesses({
        env: { SVC_TLS_MODE: 'auto' },
        listen: true,
        injectAsHttps: true,
        clock: new ManualClock(new Date()),
      });
      const before = await servedFingerprint(b);
      const now = new Date();
      const otherCa = await createCertificateAuthority(now, 'Uploaded Test CA');
      const leaf = await issueServerCertificate(otherCa, ['localhost', '127.0.0.1'], now);
      const uploaded = new X509Certificate(leaf.certPem).fingerprint256;

      const upload = await a.request('POST', '/api/settings/tls', {
        body: { certificate: leaf.certPem, private_key: leaf.keyPem },
      });
      expect(upload.status, upload.text).toBe(200);
      expect(await servedFingerprint(a)).toBe(uploaded);
      await within(1000, async () => (await servedFingerprint(b)) === uploaded);
      expect(b.hub.tls.status().source).toBe('uploaded');

      const cleared = await a.request('DELETE', '/api/settings/tls');
      expect(cleared.status, cleared.text).toBe(200);
      await within(1000, async () => (await servedFingerprint(b)) === before);
      expect(b.hub.tls.status().source).toBe('builtin');
    });

    it('picks up an override the bus never announced on the periodic re-read', async () => {
      const { a, b } = await twoProcesses({
        env: { SVC_TLS_MODE: 'auto' },
        listen: true,
        clock: new ManualClock(new Date()),
      });
      const now = new Date();
      const otherCa = await createCertificateAuthority(now, 'Uploaded Test CA');
      const leaf = await issueServerCertificate(otherCa, ['localhost'], now);
      const prepared = a.hub.tls.prepareOverride(leaf.certPem, leaf.keyPem, null);
      // Stored as an upload stores it, with no message to the other process.
      await writeSetting(a.hub.database.db, 'tls.override', prepared.override, now);
      expect(await b.hub.tls.reloadOverride()).toBe(true);
      expect(await servedFingerprint(b)).toBe(new X509Certificate(leaf.certPem).fingerprint256);
      expect(await b.hub.tls.reloadOverride()).toBe(false);
    });
  });

  describe('notification digest windows', () => {
    let receiver: Receiver | null = null;
    let alerts = 0;
    const resolver: Resolver = (host) =>
      Promise.resolve(host.endsWith('.test') ? [{ address: '127.0.0.1', family: 4 as const }] : []);

    afterEach(async () => {
      await receiver?.close();
      receiver = null;
    });

    function fire(hub: TestHub): string {
      alerts += 1;
      const alertId = `alr_${String(alerts)}`;
      hub.hub.events.publish('alert.fired', alertPayload(alertId));
      return alertId;
    }

    async function digestSetup(windowS: number) {
      const live = await startReceiver(['hooks.test']);
      receiver = live;
      const { a, b } = await twoProcesses({
        env: { SVC_OUTBOUND_ALLOW_INSECURE: 'true' },
        outbound: { resolver, ca: live.ca },
      });
      const res = await a.request('POST', '/api/settings/notifications/channels', {
        body: {
          name: 'digest',
          kind: 'webhook',
          settings: { url: `https://hooks.test:${String(live.port)}/digest` },
          digest_window_s: windowS,
        },
      });
      expect(res.status, res.text).toBe(201);
      const channel = res.json.data as NotificationChannel;
      expect(channel.digest_window_s).toBe(windowS);
      return { a, b, live, target: `notifications:${channel.id}` };
    }

    const sends = (hub: TestHub) =>
      hub.hub.database.db.selectFrom('notification_digest_sends').selectAll().execute();

    const alertIdsOf = (body: string) =>
      (JSON.parse(body) as { alerts: { alert_id: string }[] }).alerts.map((x) => x.alert_id);

    it('sends one digest with the alerts raised on A and on B in one window', async () => {
      const { a, b, live } = await digestSetup(1);
      const ids = [fire(a), fire(b), fire(a)];
      await until(() => live.hits('/digest').length === 1, 5_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(live.hits('/digest')).toHaveLength(1);
      expect(alertIdsOf(live.hits('/digest')[0]?.body ?? '{}').sort()).toEqual([...ids].sort());
    });

    it('sends, from B, a window A opened and could not send', async () => {
      const { a, b, live } = await digestSetup(60);
      const ids = [fire(a), fire(a)];
      const windows = () => b.hub.database.db.selectFrom('notification_digests').selectAll().execute();
      await until(async () => (await windows()).some((w) => w.item_count === 2), 5_000);
      // A's notifications stop (as when its process dies): its timer never fires.
      await a.hub.services.notifications.close();

      b.clock.advance(61_000);
      await b.hub.services.notifications.flushDueDigests();
      await until(() => live.hits('/digest').length === 1, 5_000);
      // Two alerts at one instant are routed concurrently: their order in the digest is not defined.
      expect(alertIdsOf(live.hits('/digest')[0]?.body ?? '{}').sort()).toEqual([...ids].sort());
      await b.hub.services.notifications.flushDueDigests();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(live.hits('/digest')).toHaveLength(1);
      expect(await windows()).toHaveLength(0);
    });

    it('sends each digest once when both processes sweep at its end, and not again after the lease', async () => {
      const { a, b, live } = await digestSetup(60);
      const ids = [fire(a), fire(b)];
      const windows = () => a.hub.database.db.selectFrom('notification_digests').selectAll().execute();
      await until(async () => (await windows()).some((w) => w.item_count === 2), 5_000);

      a.clock.advance(61_000);
      // Each sweep waits for the sends it started (the periodic sweeps may be the ones that send it).
      await Promise.all([a, b].map((hub) => hub.hub.services.notifications.flushDueDigests()));
      await until(() => live.hits('/digest').length === 1, 5_000);
      expect(alertIdsOf(live.hits('/digest')[0]?.body ?? '{}').sort()).toEqual([...ids].sort());
      expect(await sends(a)).toHaveLength(0);

      a.clock.advance(10 * 60_000);
      await Promise.all([a, b].map((hub) => hub.hub.services.notifications.flushDueDigests()));
      expect(live.hits('/digest')).toHaveLength(1);
    });

    it('sends, from B once the lease expired, a window A took and died before sending; once', async () => {
      const { a, b, live, target } = await digestSetup(60);
      const ids = [fire(a), fire(b), fire(a)];
      const windows = () => b.hub.database.db.selectFrom('notification_digests').selectAll().execute();
      await until(async () => (await windows()).some((w) => w.item_count === 3), 5_000);

      a.clock.advance(61_000);
      // A takes the window as its timer would, then dies before its send: nothing of A's gives it back.
      const taken = await createDigestStore(a.hub.database.db).take(target, a.clock.now(), 60_000);
      expect(taken?.items).toHaveLength(3);
      await a.hub.services.notifications.close();
      expect(await windows()).toHaveLength(0);
      expect(await sends(b)).toMatchObject([{ target, more: 0 }]);

      // Within A's lease B leaves it alone.
      a.clock.advance(30_000);
      await b.hub.services.notifications.flushDueDigests();
      expect(live.hits('/digest')).toHaveLength(0);

      a.clock.advance(31_000);
      await b.hub.services.notifications.flushDueDigests();
      await until(() => live.hits('/digest').length === 1, 5_000);
      // Raised at one instant on two processes: their order in the digest is not defined.
      expect(alertIdsOf(live.hits('/digest')[0]?.body ?? '{}').sort()).toEqual([...ids].sort());
      await until(async () => (await sends(b)).length === 0, 5_000);

      a.clock.advance(10 * 60_000);
      await b.hub.services.notifications.flushDueDigests();
      expect(live.hits('/digest')).toHaveLength(1);
    });

    it('gives back a digest whose send A stopped when closing, and B sends it without waiting for the lease', async () => {
      const { a, b, live } = await digestSetup(60);
      // The receiver holds A's request open: A's send is under way when A closes.
      live.on('/digest', (res, _request, hits) => {
        if (hits > 1) res.end('ok');
      });
      const ids = [fire(a), fire(b)];
      const windows = () => a.hub.database.db.selectFrom('notification_digests').selectAll().execute();
      await until(async () => (await windows()).some((w) => w.item_count === 2), 5_000);

      a.clock.advance(61_000);
      const sweepOnA = a.hub.services.notifications.flushDueDigests();
      await until(() => live.hits('/digest').length === 1, 5_000);
      await a.hub.services.notifications.close();
      await sweepOnA;

      await b.hub.services.notifications.flushDueDigests();
      await until(() => live.hits('/digest').length === 2, 5_000);
      expect(alertIdsOf(live.hits('/digest')[1]?.body ?? '{}').sort()).toEqual([...ids].sort());
      await until(async () => (await sends(b)).length === 0, 5_000);
    });
  });
});
