/**
 * Device-owner checks (decision 0033): a device registers its platform authenticator (WebAuthn, user
 * verification required); before a quick action changes an incident or a remote session opens, the device
 * owner is verified again and the hub hands out a proof: random, for one purpose, one use, short-lived
 * (`mobileLimits.proofTtlS`). The hub checks the proof where the change is made (`spend`), so a page that
 * skipped the ceremony gets 403. Challenges and proofs live in memory: a hub restart asks for a new one.
 */
import crypto from 'node:crypto';
import { isIP } from 'node:net';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import {
  mobileLimits,
  newId,
  type DeviceProof,
  type ProofRequest,
  type WebauthnCredential,
  type WebauthnOptions,
  type WebauthnRegistration,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { ActionContext, Principal } from '../../access/principal.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { HubError } from '../../platform/hub-error.js';
import type { AuditService } from '../audit/audit.service.js';
import { credentialsOf, findCredential, insertCredential, markCredentialUsed } from './mobile.repository.js';

export interface DeviceOwnerService {
  registrationOptions(ctx: ActionContext, deviceId: string): Promise<WebauthnOptions>;
  register(ctx: ActionContext, input: WebauthnRegistration): Promise<WebauthnCredential>;
  proofOptions(ctx: ActionContext, purpose: string): Promise<WebauthnOptions>;
  prove(ctx: ActionContext, input: ProofRequest): Promise<DeviceProof>;
  /**
   * Spends a proof: it must be this user's, for exactly this purpose, unexpired and unused. The seam for
   * remote sessions (`session:<kind>:<asset id>`) as for quick actions. Throws 403 otherwise.
   */
  spend(principal: Principal, purpose: string, proof: string): void;
}

interface Pending {
  challenge: string;
  userId: string;
  /** `register:<device id>` or the proof's purpose. */
  purpose: string;
  expiresAt: number;
}

interface Proof {
  userId: string;
  purpose: string;
  expiresAt: number;
}

/** Outstanding challenges and proofs at most (oldest dropped first): memory stays bounded. */
const maxPending = 1000;

function sha256(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

/**
 * The hub's origin as the browser saw it: the Origin header the origin check already matched. WebAuthn's
 * relying party is that origin's host, which must be a domain: a page opened by IP address would only get
 * the browser's "invalid domain" refusal, so the hub says here what to do instead, naming the certificate's
 * names (`hubNames`).
 */
function originOf(ctx: ActionContext, hubNames: () => string[]): { origin: string; rpID: string } {
  if (!ctx.origin)
    throw new HubError('forbidden', "WebAuthn needs the request to come from the hub's page (Origin header)");
  const url = new URL(ctx.origin);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0) {
    const names = hubNames();
    const where =
      names.length > 0
        ? `one of the names in its certificate: ${names.map((n) => `${url.protocol}//${n}${url.port ? `:${url.port}` : ''}`).join(', ')}`
        : 'a DNS name that leads to it';
    throw new HubError(
      'webauthn_needs_hostname',
      `Passkeys cannot use the IP address ${host} as the hub's name: open the hub by ${where}.`,
    );
  }
  return { origin: url.origin, rpID: url.hostname };
}

function userOf(ctx: ActionContext): string {
  const userId = ctx.principal.userId;
  if (userId === null) throw new HubError('forbidden', 'device-owner checks belong to a signed-in user');
  return userId;
}

function bounded<T>(map: Map<string, T>): void {
  while (map.size > maxPending) {
    const oldest = map.keys().next().value;
    if (oldest === undefined) break;
    map.delete(oldest);
  }
}

export function createDeviceOwnerService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  usernameOf: (userId: string) => Promise<string>;
  /** The DNS names of the certificate the hub serves, offered to a page opened by IP address. */
  hubNames?: () => string[];
}): DeviceOwnerService {
  const { db, clock, audit } = deps;
  const hubNames = deps.hubNames ?? (() => []);
  const pending = new Map<string, Pending>();
  const proofs = new Map<string, Proof>();

  function remember(userId: string, purpose: string, challenge: string): void {
    pending.set(`${userId}|${purpose}`, {
      challenge,
      userId,
      purpose,
      expiresAt: clock.now().getTime() + mobileLimits.challengeTtlS * 1000,
    });
    bounded(pending);
  }

  function takeChallenge(userId: string, purpose: string): string {
    const key = `${userId}|${purpose}`;
    const entry = pending.get(key);
    pending.delete(key);
    if (!entry || entry.expiresAt < clock.now().getTime()) {
      throw new HubError(
        'forbidden',
        'no WebAuthn challenge is waiting for this answer (or it expired): ask for new options',
      );
    }
    return entry.challenge;
  }

  return {
    async registrationOptions(ctx, deviceId) {
      const userId = userOf(ctx);
      const { rpID } = originOf(ctx, hubNames);
      const existing = await credentialsOf(db, userId);
      if (existing.length >= mobileLimits.credentialsPerUser) {
        throw new HubError('conflict', `at most ${String(mobileLimits.credentialsPerUser)} devices per user`);
      }
      const options = await generateRegistrationOptions({
        rpName: 'svc hub',
        rpID,
        userName: await deps.usernameOf(userId),
        userID: new TextEncoder().encode(userId),
        attestationType: 'none',
        excludeCredentials: existing.map((c) => ({ id: c.credential_id })),
        authenticatorSelection: {
          authenticatorAttachment: 'platform',
          userVerification: 'required',
          residentKey: 'preferred',
        },
      });
      remember(userId, `register:${deviceId}`, options.challenge);
      return { options: { ...options } };
    },

    async register(ctx, input) {
      const userId = userOf(ctx);
      const { origin, rpID } = originOf(ctx, hubNames);
      const expectedChallenge = takeChallenge(userId, `register:${input.device_id}`);
      let verified;
      try {
        verified = await verifyRegistrationResponse({
          response: input.response as unknown as RegistrationResponseJSON,
          expectedChallenge,
          expectedOrigin: origin,
          expectedRPID: rpID,
          requireUserVerification: true,
        });
      } catch (error) {
        throw new HubError(
          'validation',
          `the authenticator's answer is refused: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      if (!verified.verified)
        throw new HubError('forbidden', 'the authenticator did not verify the device owner');
      const { credential } = verified.registrationInfo;
      const now = clock.now().toISOString();
      const row = {
        id: newId('webauthnCredential'),
        user_id: userId,
        device_id: input.device_id,
        credential_id: credential.id,
        public_key: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        created_at: now,
        last_used_at: null,
      };
      await db.transaction().execute(async (trx) => {
        await insertCredential(trx, row);
        await audit.record(trx, ctx, {
          action: 'webauthn_credential.created',
          targetType: 'webauthn_credential',
          targetId: row.id,
          detail: { device_id: input.device_id },
        });
      });
      return { id: row.id, device_id: row.device_id, created_at: row.created_at };
    },

    async proofOptions(ctx, purpose) {
      const userId = userOf(ctx);
      const { rpID } = originOf(ctx, hubNames);
      const credentials = await credentialsOf(db, userId);
      if (credentials.length === 0) {
        throw new HubError(
          'conflict',
          'no device is registered for device-owner checks: register this device first',
        );
      }
      const options = await generateAuthenticationOptions({
        rpID,
        allowCredentials: credentials.map((c) => ({ id: c.credential_id })),
        userVerification: 'required',
      });
      remember(userId, purpose, options.challenge);
      return { options: { ...options } };
    },

    async prove(ctx, input) {
      const userId = userOf(ctx);
      const { origin, rpID } = originOf(ctx, hubNames);
      const expectedChallenge = takeChallenge(userId, input.purpose);
      const answer = input.response as unknown as AuthenticationResponseJSON;
      const stored = typeof answer.id === 'string' ? await findCredential(db, userId, answer.id) : undefined;
      if (!stored) throw new HubError('forbidden', 'this authenticator is not registered to you');
      let verified;
      try {
        verified = await verifyAuthenticationResponse({
          response: answer,
          expectedChallenge,
          expectedOrigin: origin,
          expectedRPID: rpID,
          credential: {
            id: stored.credential_id,
            publicKey: new Uint8Array(Buffer.from(stored.public_key, 'base64url')),
            counter: stored.counter,
          },
          requireUserVerification: true,
        });
      } catch (error) {
        throw new HubError(
          'forbidden',
          `the device owner was not verified: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      if (!verified.verified || !verified.authenticationInfo.userVerified) {
        throw new HubError('forbidden', 'the device owner was not verified');
      }
      const now = clock.now();
      await markCredentialUsed(db, stored.id, verified.authenticationInfo.newCounter, now.toISOString());
      const proof = crypto.randomBytes(32).toString('base64url');
      const expiresAt = now.getTime() + mobileLimits.proofTtlS * 1000;
      proofs.set(sha256(proof), { userId, purpose: input.purpose, expiresAt });
      bounded(proofs);
      return { proof, purpose: input.purpose, expires_at: new Date(expiresAt).toISOString() };
    },

    spend(principal, purpose, proof) {
      const key = sha256(proof);
      const held = proofs.get(key);
      if (held?.userId === principal.userId) proofs.delete(key);
      if (
        !held ||
        held.userId !== principal.userId ||
        held.purpose !== purpose ||
        held.expiresAt < clock.now().getTime()
      ) {
        throw new HubError(
          'forbidden',
          `no valid device-owner proof for ${purpose}: verify the device owner again`,
        );
      }
    },
  };
}
