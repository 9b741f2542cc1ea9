/** Enrollment tokens an admin makes, and the enrollment an agent makes with one (transport surface). */
import { Type, type Static } from 'typebox';
import { EnrollRequest, EnrollResponse } from '../agent-messages.js';
import { defineRoute, type RouteContract } from '../contract.js';
import { PaginationQuery } from '../envelope.js';
import { IdParams, Maybe, Name, Timestamp } from './shared.js';

export const EnrollmentTokenCreate = Type.Object(
  {
    name: Name,
    // No schema default: when absent, the runtime settings enrollment.token_default_* decide (24 h, 1 use).
    expires_in_hours: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 24 * 365,
        description: 'Default: the setting enrollment.token_default_expires_hours (24)',
      }),
    ),
    max_uses: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10_000,
        description: 'Default: the setting enrollment.token_default_max_uses (1)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type EnrollmentTokenCreate = Static<typeof EnrollmentTokenCreate>;

export const EnrollmentToken = Type.Object({
  id: Type.String(),
  name: Type.String(),
  expires_at: Timestamp,
  max_uses: Type.Integer(),
  uses: Type.Integer(),
  revoked: Type.Boolean(),
  created_by: Maybe(Type.String()),
  created_at: Timestamp,
  /** The hub CA's fingerprint, for agents to pin at enrollment (null when the hub serves no CA of its own). */
  ca_fingerprint_sha256: Maybe(Type.String()),
});
export type EnrollmentToken = Static<typeof EnrollmentToken>;
export const EnrollmentTokenCreated = Type.Object({ ...EnrollmentToken.properties, token: Type.String() });
export type EnrollmentTokenCreated = Static<typeof EnrollmentTokenCreated>;

export const enrollmentContracts = {
  'enrollment.create': defineRoute({
    name: 'enrollment.create',
    surface: 'v2',
    method: 'POST',
    path: '/enrollment-tokens',
    auth: 'admin',
    summary: 'Create an agent enrollment token (shown once)',
    body: EnrollmentTokenCreate,
    response: EnrollmentTokenCreated,
    successStatus: 201,
  }),
  'enrollment.list': defineRoute({
    name: 'enrollment.list',
    surface: 'v2',
    method: 'GET',
    path: '/enrollment-tokens',
    auth: 'admin',
    summary: 'List enrollment tokens',
    query: PaginationQuery,
    response: EnrollmentToken,
    list: true,
  }),
  'enrollment.revoke': defineRoute({
    name: 'enrollment.revoke',
    surface: 'v2',
    method: 'DELETE',
    path: '/enrollment-tokens/{id}',
    auth: 'admin',
    summary: 'Revoke an enrollment token',
    params: IdParams,
    response: EnrollmentToken,
  }),
  'enrollment.enroll': defineRoute({
    name: 'enrollment.enroll',
    operationId: 'enroll',
    surface: 'transport',
    method: 'POST',
    path: '/enroll',
    auth: 'public',
    summary:
      'Agent enrollment with an enrollment token; returns the asset id, a credential and the CA (trust on first use)',
    body: EnrollRequest,
    response: EnrollResponse,
    successStatus: 201,
  }),
} satisfies Record<string, RouteContract>;
