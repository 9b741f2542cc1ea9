/**
 * A device-owner proof opens one thing, once (decision 0033): a software platform authenticator earns real
 * proofs from the hub, and each is refused when reused (terminal session, desktop session, incident quick
 * action), when spent on another asset, kind or incident, when expired, and when the authenticator did not
 * verify its user.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentChannelPath, mobileLimits } from '@svc/protocol';
import { FakeAgent, provisionAgents, startTestHub, type TestHub } from '@svc/testkit';
import { ManualClock } from '../../platform/clock.js';
import { createSoftAuthenticator, type SoftAuthenticator } from '../../testing/soft-authenticator.js';

// inject() sends this Host; a same-origin console request carries its origin.
const ownOrigin = 'http://localhost:80';
const refusal = /no valid device-owner proof/;

describe('device-owner proofs are single-use and bound to one purpose', () => {
  let t: TestHub;
  let cookie: string;
  let assetId: string;
  let otherAssetId: string;
  let agents: FakeAgent[] = [];
  let authenticator: SoftAuthenticator;

  const asOwner = (method: string, url: string, body?: unknown) =>
    t.request(method, url, {
      key: null,
      headers: { cookie, origin: ownOrigin },
      ...(body !== undefined ? { body } : {}),
    });

  /** A proof for `purpose`, through the hub's options and the authenticator's signed answer. */
  async function proof(purpose: string, userVerified = true): Promise<string> {
    const options = await asOwner('POST', '/api/mobile/webauthn/proof-options', { purpose });
    expect(options.status, options.text).toBe(200);
    const { options: challenge } = options.json.data as { options: { challenge: string; rpId?: string } };
    const answer = await asOwner('POST', '/api/mobile/webauthn/proofs', {
      purpose,
      response: authenticator.assert(challenge, userVerified),
    });
    if (!userVerified) {
      expect(answer.status).toBe(403);
      return '';
    }
    expect(answer.status, answer.text).toBe(201);
    return (answer.json.data as { proof: string }).proof;
  }

  const terminal = (asset: string, deviceProof: string) =>
    asOwner('POST', `/api/v2/assets/${asset}/sessions`, { kind: 'terminal', device_proof: deviceProof });
  const desktop = (asset: string, deviceProof: string) =>
    asOwner('POST', `/api/v2/assets/${asset}/desktop/sessions`, { device_proof: deviceProof });

  beforeAll(async () => {
    t = await startTestHub({ listen: true, clock: new ManualClock(new Date()) });
    const port = t.servers?.httpPort ?? 0;
    const identities = await provisionAgents(t.hub, 2, 'prf');
    agents = identities.map(
      (identity) =>
        new FakeAgent({
          url: `ws://127.0.0.1:${port}${agentChannelPath}`,
          credential: identity.credential,
          terminal: true,
        }),
    );
    await Promise.all(agents.map((agent) => agent.start()));
    [assetId, otherAssetId] = identities.map((identity) => identity.assetId) as [string, string];

    const login = await t.request('POST', '/api/auth/login', {
      key: null,
      body: { username: 'owner', password: t.ownerPassword },
    });
    const header = login.headers['set-cookie'];
    const all = header === undefined ? [] : Array.isArray(header) ? header : [String(header)];
    cookie = all.find((c) => c.startsWith('svc_session='))?.split(';')[0] ?? '';

    authenticator = createSoftAuthenticator(new URL(ownOrigin).origin);
    const options = await asOwner('POST', '/api/mobile/webauthn/registration-options', {
      device_id: 'phone-proofs',
    });
    expect(options.status, options.text).toBe(200);
    const { options: creation } = options.json.data as {
      options: { challenge: string; rp: { id?: string } };
    };
    const registered = await asOwner('POST', '/api/mobile/webauthn/registrations', {
      device_id: 'phone-proofs',
      response: authenticator.register(creation),
    });
    expect(registered.status, registered.text).toBe(201);
  });

  afterAll(async () => {
    for (const agent of agents) agent.close();
    await t.close();
  });

  it('opens one terminal session with a proof, and refuses the same proof again', async () => {
    const once = await proof(`session:terminal:${assetId}`);
    const first = await terminal(assetId, once);
    expect(first.status, first.text).toBe(201);
    const again = await terminal(assetId, once);
    expect(again.status).toBe(403);
    expect(again.json.message).toMatch(refusal);
  });

  it('opens one desktop session with a proof, and refuses the same proof again', async () => {
    const once = await proof(`session:desktop:${assetId}`);
    const first = await desktop(assetId, once);
    expect(first.status, first.text).toBe(201);
    const again = await desktop(assetId, once);
    expect(again.status).toBe(403);
    expect(again.json.message).toMatch(refusal);
    // Without a body the create asks for no proof (the console's Desktop tab).
    const plain = await asOwner('POST', `/api/v2/assets/${assetId}/desktop/sessions`);
    expect(plain.status, plain.text).toBe(201);
  });

  it('refuses a proof earned for another asset or another kind of session', async () => {
    const forOther = await proof(`session:terminal:${otherAssetId}`);
    const wrongAsset = await terminal(assetId, forOther);
    expect(wrongAsset.status).toBe(403);
    expect(wrongAsset.json.message).toMatch(refusal);

    const forTerminal = await proof(`session:terminal:${assetId}`);
    const wrongKind = await desktop(assetId, forTerminal);
    expect(wrongKind.status).toBe(403);
    expect(wrongKind.json.message).toMatch(refusal);
  });

  it('spends a quick action proof once, for its incident and action only', async () => {
    const incident = 'inc_01hzzzzzzzzzzzzzzzzzzzzzzz';
    const purpose = `quick-action:incident.resolve:${incident}`;
    const forOtherIncident = await proof(purpose);
    const other = await asOwner('POST', '/api/mobile/quick-actions', {
      action: 'incident.resolve',
      id: 'inc_01hyyyyyyyyyyyyyyyyyyyyyyy',
      proof: forOtherIncident,
    });
    expect(other.status).toBe(403);
    expect(other.json.message).toMatch(refusal);

    const forAck = await proof(`quick-action:alert.acknowledge:${incident}`);
    const otherAction = await asOwner('POST', '/api/mobile/quick-actions', {
      action: 'incident.resolve',
      id: incident,
      proof: forAck,
    });
    expect(otherAction.status).toBe(403);

    const once = await proof(purpose);
    const first = await asOwner('POST', '/api/mobile/quick-actions', {
      action: 'incident.resolve',
      id: incident,
      proof: once,
    });
    // Past the proof: the hub looked for the incident (there is none).
    expect(first.status, first.text).toBe(404);
    const again = await asOwner('POST', '/api/mobile/quick-actions', {
      action: 'incident.resolve',
      id: incident,
      proof: once,
    });
    expect(again.status).toBe(403);
    expect(again.json.message).toMatch(refusal);
  });

  it('refuses an expired proof, and gives none without user verification', async () => {
    const late = await proof(`session:terminal:${assetId}`);
    t.clock.advance((mobileLimits.proofTtlS + 1) * 1000);
    const expired = await terminal(assetId, late);
    expect(expired.status).toBe(403);
    expect(expired.json.message).toMatch(refusal);

    await proof(`session:terminal:${assetId}`, false);
  });
});
