/**
 * The mobile companion's own routes (issue 17; docs/decisions/0033-mobile-device-owner-proof.md): WebAuthn
 * credentials of device owners and the short-lived proofs the hub checks before a quick action changes an
 * incident or a remote session opens; the quick actions themselves; the opt-in client telemetry. Console
 * surface, session only: the app is a page of the hub's origin signed in with the console's cookie.
 */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { Alert } from './alerts.js';
import { Incident } from './incidents.js';
import { literals, Maybe, Timestamp } from './shared.js';

export const mobileLimits = {
  /** Seconds a proof stays valid after the device owner was verified; it is spent by its first use. */
  proofTtlS: 60,
  /** Seconds a WebAuthn challenge waits for its answer. */
  challengeTtlS: 300,
  /** Credentials (devices) per user. */
  credentialsPerUser: 20,
  telemetryEventsPerRequest: 50,
  /** Telemetry events a user may send per hour; above it the rest of the hour's are refused (429). */
  telemetryEventsPerHour: 1000,
  telemetryDetailBytes: 2048,
  /** Days telemetry events are kept. */
  telemetryRetentionDays: 7,
} as const;

/** A device's own random id (the app makes it once and keeps it in its storage). */
export const DeviceId = Type.String({ pattern: '^[A-Za-z0-9_-]{8,64}$' });

export const quickActionKinds = ['incident.resolve', 'alert.acknowledge', 'alert.silence'] as const;
export type QuickActionKind = (typeof quickActionKinds)[number];

/**
 * What a proof is for: `quick-action:<kind>:<id>` or `session:<kind>:<asset id>` (the remote session seam):
 * a proof made for one purpose is refused for any other.
 */
export const ProofPurpose = Type.String({ pattern: '^(quick-action|session):[a-z.]+:[A-Za-z0-9_]{1,64}$' });

/** A WebAuthn JSON object (options to the browser, or its answer), checked by the WebAuthn verifier. */
const WebauthnJson = Type.Record(Type.String(), Type.Unknown());

export const WebauthnOptions = Type.Object({ options: WebauthnJson });
export type WebauthnOptions = Static<typeof WebauthnOptions>;

export const WebauthnRegistrationOptionsRequest = Type.Object(
  { device_id: DeviceId },
  { additionalProperties: false },
);

export const WebauthnRegistration = Type.Object(
  { device_id: DeviceId, response: WebauthnJson },
  { additionalProperties: false },
);
export type WebauthnRegistration = Static<typeof WebauthnRegistration>;

export const WebauthnCredential = Type.Object({
  id: Type.String(),
  device_id: Type.String(),
  created_at: Timestamp,
});
export type WebauthnCredential = Static<typeof WebauthnCredential>;

export const ProofOptionsRequest = Type.Object({ purpose: ProofPurpose }, { additionalProperties: false });

export const ProofRequest = Type.Object(
  { purpose: ProofPurpose, response: WebauthnJson },
  { additionalProperties: false },
);
export type ProofRequest = Static<typeof ProofRequest>;

export const DeviceProof = Type.Object({
  proof: Type.String(),
  purpose: Type.String(),
  expires_at: Timestamp,
});
export type DeviceProof = Static<typeof DeviceProof>;

export const QuickAction = Type.Object(
  {
    action: literals(quickActionKinds),
    id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_]+$' }),
    /** From `POST /mobile/webauthn/proofs` for `quick-action:<action>:<id>`. */
    proof: Type.String({ minLength: 1, maxLength: 128 }),
    /** For `alert.silence`. */
    duration_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_080 })),
  },
  { additionalProperties: false },
);
export type QuickAction = Static<typeof QuickAction>;

export const QuickActionResult = Type.Object({
  action: literals(quickActionKinds),
  alert: Maybe(Alert),
  incident: Maybe(Incident),
});
export type QuickActionResult = Static<typeof QuickActionResult>;

export const telemetryEventNames = [
  'app.opened',
  'app.offline',
  'app.online',
  'ws.closed',
  'ws.reconnected',
  'queue.replayed',
  'queue.dropped',
  'push.shown',
] as const;

export const TelemetryBatch = Type.Object(
  {
    device_id: DeviceId,
    events: Type.Array(
      Type.Object(
        {
          name: literals(telemetryEventNames),
          ts: Timestamp,
          detail: Type.Optional(
            Type.Record(
              Type.String({ maxLength: 64 }),
              Type.Union([Type.String({ maxLength: 256 }), Type.Number(), Type.Boolean()]),
              { maxProperties: 16 },
            ),
          ),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: mobileLimits.telemetryEventsPerRequest },
    ),
  },
  { additionalProperties: false },
);
export type TelemetryBatch = Static<typeof TelemetryBatch>;

export const TelemetryReceipt = Type.Object({ accepted: Type.Integer() });

export const mobileContracts = {
  'mobile.registrationOptions': defineRoute({
    name: 'mobile.registrationOptions',
    surface: 'console',
    method: 'POST',
    path: '/mobile/webauthn/registration-options',
    auth: 'authenticated',
    sessionOnly: true,
    selfService: true,
    summary: "Options to register this device's platform authenticator (user verification required)",
    body: WebauthnRegistrationOptionsRequest,
    response: WebauthnOptions,
  }),
  'mobile.register': defineRoute({
    name: 'mobile.register',
    surface: 'console',
    method: 'POST',
    path: '/mobile/webauthn/registrations',
    auth: 'authenticated',
    sessionOnly: true,
    selfService: true,
    summary: "Register this device's authenticator from its attestation",
    body: WebauthnRegistration,
    response: WebauthnCredential,
    successStatus: 201,
  }),
  'mobile.proofOptions': defineRoute({
    name: 'mobile.proofOptions',
    surface: 'console',
    method: 'POST',
    path: '/mobile/webauthn/proof-options',
    auth: 'authenticated',
    sessionOnly: true,
    selfService: true,
    summary: 'A challenge for the device owner, for one purpose',
    body: ProofOptionsRequest,
    response: WebauthnOptions,
  }),
  'mobile.proof': defineRoute({
    name: 'mobile.proof',
    surface: 'console',
    method: 'POST',
    path: '/mobile/webauthn/proofs',
    auth: 'authenticated',
    sessionOnly: true,
    selfService: true,
    summary: 'Verify the device owner (user verified) and get a one-use proof for the purpose',
    body: ProofRequest,
    response: DeviceProof,
    successStatus: 201,
  }),
  'mobile.quickAction': defineRoute({
    name: 'mobile.quickAction',
    surface: 'console',
    method: 'POST',
    path: '/mobile/quick-actions',
    auth: 'authenticated',
    sessionOnly: true,
    summary: 'Acknowledge or silence an alert, or resolve an incident, with a device-owner proof',
    body: QuickAction,
    response: QuickActionResult,
  }),
  'mobile.telemetry': defineRoute({
    name: 'mobile.telemetry',
    surface: 'console',
    method: 'POST',
    path: '/mobile/telemetry',
    auth: 'authenticated',
    sessionOnly: true,
    selfService: true,
    summary: 'Record opt-in client observability events of a device (bounded per request and per hour)',
    body: TelemetryBatch,
    response: TelemetryReceipt,
    successStatus: 202,
  }),
} satisfies Record<string, RouteContract>;
