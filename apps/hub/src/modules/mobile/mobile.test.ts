import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '@svc/testkit';

// inject() sends this Host; a same-origin console request carries its origin.
const ownOrigin = 'http://localhost:80';

describe('the mobile routes: device-owner checks, quick actions, telemetry', () => {
  let t: TestHub;
  let cookie: string;

  const asOwner = (method: string, url: string, body?: unknown) =>
    t.request(method, url, {
      key: null,
      headers: { cookie, origin: ownOrigin },
      ...(body !== undefined ? { body } : {}),
    });

  beforeAll(async () => {
    t = await startTestHub();
    const login = await t.request('POST', '/api/auth/login', {
      key: null,
      body: { username: 'owner', password: t.ownerPassword },
    });
    const header = login.headers['set-cookie'];
    const all = header === undefined ? [] : Array.isArray(header) ? header : [String(header)];
    cookie = all.find((c) => c.startsWith('svc_session='))?.split(';')[0] ?? '';
  });

  afterAll(async () => {
    await t.close();
  });

  it('asks a platform authenticator with user verification, for the hub page origin', async () => {
    const res = await asOwner('POST', '/api/mobile/webauthn/registration-options', {
      device_id: 'phone-0001',
    });
    expect(res.status, res.text).toBe(200);
    const { options } = res.json.data as { options: Record<string, unknown> };
    expect(options.rp).toEqual({ name: 'svc hub', id: 'localhost' });
    expect(options.authenticatorSelection).toMatchObject({
      authenticatorAttachment: 'platform',
      userVerification: 'required',
    });
    expect(typeof options.challenge).toBe('string');
  });

  it('refuses a passkey ceremony for a page opened by IP address, saying to open the hub by name', async () => {
    // The browser would refuse it anyway ("invalid domain"): the hub says why and what to do instead.
    for (const url of ['/api/mobile/webauthn/registration-options', '/api/mobile/webauthn/proof-options']) {
      const res = await t.request('POST', url, {
        key: null,
        headers: { cookie, host: '127.0.0.1:80', origin: 'http://127.0.0.1:80' },
        body: url.includes('registration') ? { device_id: 'phone-by-ip' } : { purpose: 'session:terminal:a' },
      });
      expect(res.status, res.text).toBe(403);
      expect(res.json.error).toBe('webauthn_needs_hostname');
      expect(res.json.message).toMatch(/IP address 127\.0\.0\.1.*open the hub by/);
    }
  });

  it('refuses an answer to no challenge, and a proof before any device is registered', async () => {
    const register = await asOwner('POST', '/api/mobile/webauthn/registrations', {
      device_id: 'phone-0002',
      response: { id: 'x', rawId: 'x', type: 'public-key', response: {} },
    });
    expect(register.status).toBe(403);
    const options = await asOwner('POST', '/api/mobile/webauthn/proof-options', {
      purpose: 'quick-action:incident.resolve:inc_1',
    });
    expect(options.status).toBe(409);
    expect(options.json.message).toMatch(/register this device first/);
  });

  it('refuses a quick action without a valid device-owner proof, and changes nothing', async () => {
    const res = await asOwner('POST', '/api/mobile/quick-actions', {
      action: 'incident.resolve',
      id: 'inc_01hzzzzzzzzzzzzzzzzzzzzzzz',
      proof: 'forged-proof',
    });
    expect(res.status).toBe(403);
    expect(res.json.message).toMatch(/no valid device-owner proof/);
  });

  it('records opt-in telemetry events in bounds, and refuses a key (session only)', async () => {
    const accepted = await asOwner('POST', '/api/mobile/telemetry', {
      device_id: 'phone-0001',
      events: [{ name: 'app.opened', ts: '2026-11-23T12:00:00.000Z', detail: { standalone: true } }],
    });
    expect(accepted.status, accepted.text).toBe(202);
    expect(accepted.json.data).toEqual({ accepted: 1 });
    const rows = await t.hub.database.db.selectFrom('mobile_telemetry').selectAll().execute();
    expect(rows.map((r) => [r.name, r.device_id, r.detail])).toEqual([
      ['app.opened', 'phone-0001', '{"standalone":true}'],
    ]);

    const tooMany = await asOwner('POST', '/api/mobile/telemetry', {
      device_id: 'phone-0001',
      events: Array.from({ length: 51 }, () => ({ name: 'app.opened', ts: '2026-11-23T12:00:00.000Z' })),
    });
    expect(tooMany.status).toBe(400);
    const unknown = await asOwner('POST', '/api/mobile/telemetry', {
      device_id: 'phone-0001',
      events: [{ name: 'keystrokes', ts: '2026-11-23T12:00:00.000Z' }],
    });
    expect(unknown.status).toBe(400);
    const byKey = await t.request('POST', '/api/mobile/telemetry', {
      body: { device_id: 'phone-0001', events: [{ name: 'app.opened', ts: '2026-11-23T12:00:00.000Z' }] },
    });
    expect(byKey.status).toBe(403);
  });
});
