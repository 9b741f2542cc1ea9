/** Console sign-in (`/api/auth`): password, second factor, OIDC, the session, the own password and owner token. */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { roles } from '../roles.js';
import { Timestamp } from './shared.js';

export const LoginRequest = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64 }),
    password: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false },
);
export type LoginRequest = Static<typeof LoginRequest>;

export const SessionUser = Type.Object({
  id: Type.String(),
  username: Type.String(),
  role: Type.Enum<[...typeof roles]>([...roles]),
  totp_enabled: Type.Boolean(),
  auth_method: Type.String(),
  session_expires_at: Timestamp,
  /** True until the user sets a new password (the owner's generated one at first run): nothing else works. */
  must_change_password: Type.Boolean(),
});
export type SessionUser = Static<typeof SessionUser>;

export const PasswordChange = Type.Object(
  {
    current_password: Type.String({ minLength: 1, maxLength: 256 }),
    new_password: Type.String({ minLength: 12, maxLength: 256 }),
  },
  { additionalProperties: false },
);
export type PasswordChange = Static<typeof PasswordChange>;

export const PasswordChanged = Type.Object({ changed: Type.Boolean() });
export type PasswordChanged = Static<typeof PasswordChanged>;

/** The owner token, shown once: a new one replaces (revokes) every earlier owner token. */
export const OwnerTokenCreated = Type.Object({
  id: Type.String(),
  prefix: Type.String(),
  raw_key: Type.String(),
  revoked: Type.Integer({ minimum: 0 }),
});
export type OwnerTokenCreated = Static<typeof OwnerTokenCreated>;

export const LoginResult = Type.Object({
  requires_2fa: Type.Boolean(),
  challenge_token: Type.Optional(Type.String()),
  user: Type.Optional(SessionUser),
});
export type LoginResult = Static<typeof LoginResult>;

export const TwoFactorLogin = Type.Object(
  {
    challenge_token: Type.String({ minLength: 1, maxLength: 128 }),
    code: Type.String({ minLength: 6, maxLength: 32 }),
  },
  { additionalProperties: false },
);
export type TwoFactorLogin = Static<typeof TwoFactorLogin>;

export const TotpSetup = Type.Object({
  secret: Type.String(),
  otpauth_uri: Type.String(),
});
export type TotpSetup = Static<typeof TotpSetup>;

export const TotpCode = Type.Object(
  { code: Type.String({ minLength: 6, maxLength: 32 }) },
  { additionalProperties: false },
);
export type TotpCode = Static<typeof TotpCode>;

export const RecoveryCodes = Type.Object({ recovery_codes: Type.Array(Type.String()) });
export type RecoveryCodes = Static<typeof RecoveryCodes>;

export const TwoFactorStatus = Type.Object({ enabled: Type.Boolean() });
export type TwoFactorStatus = Static<typeof TwoFactorStatus>;

export const OidcStart = Type.Object({ authorization_url: Type.String() });
export type OidcStart = Static<typeof OidcStart>;

export const OidcCallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  state: Type.Optional(Type.String({ maxLength: 512 })),
  error: Type.Optional(Type.String({ maxLength: 512 })),
  iss: Type.Optional(Type.String({ maxLength: 2048 })),
});

export const SignedOut = Type.Object({ signed_out: Type.Boolean() });
export type SignedOut = Static<typeof SignedOut>;

export const authContracts = {
  'auth.login': defineRoute({
    name: 'auth.login',
    surface: 'console',
    method: 'POST',
    path: '/auth/login',
    auth: 'public',
    summary: 'Sign in with username and password; sets the session cookie or asks for a second factor',
    body: LoginRequest,
    response: LoginResult,
  }),
  'auth.login2fa': defineRoute({
    name: 'auth.login2fa',
    surface: 'console',
    method: 'POST',
    path: '/auth/login/2fa',
    auth: 'public',
    summary: 'Complete a sign-in with a TOTP code or a recovery code',
    body: TwoFactorLogin,
    response: LoginResult,
  }),
  'auth.logout': defineRoute({
    name: 'auth.logout',
    surface: 'console',
    method: 'POST',
    path: '/auth/logout',
    auth: 'authenticated',
    selfService: true,
    sessionOnly: true,
    summary: 'End this session',
    beforePasswordChange: true,
    response: SignedOut,
  }),
  'auth.changePassword': defineRoute({
    name: 'auth.changePassword',
    surface: 'console',
    method: 'POST',
    path: '/auth/password',
    auth: 'authenticated',
    selfService: true,
    sessionOnly: true,
    beforePasswordChange: true,
    summary:
      "Set a new password (the current one is required); ends the user's other sessions. The owner's first-run credentials file is deleted.",
    body: PasswordChange,
    response: PasswordChanged,
  }),
  'auth.ownerToken': defineRoute({
    name: 'auth.ownerToken',
    surface: 'console',
    method: 'POST',
    path: '/auth/owner-token',
    auth: 'authenticated',
    sessionOnly: true,
    summary:
      'Owner only: make a new owner token, shown once in this answer; every earlier owner token is revoked',
    response: OwnerTokenCreated,
  }),
  'auth.me': defineRoute({
    name: 'auth.me',
    surface: 'console',
    method: 'GET',
    path: '/auth/me',
    auth: 'authenticated',
    sessionOnly: true,
    beforePasswordChange: true,
    summary: 'The signed-in user',
    response: SessionUser,
  }),
  'auth.2faStatus': defineRoute({
    name: 'auth.2faStatus',
    surface: 'console',
    method: 'GET',
    path: '/auth/2fa',
    auth: 'authenticated',
    sessionOnly: true,
    summary: 'Whether two-factor sign-in is on',
    response: TwoFactorStatus,
  }),
  'auth.2faSetup': defineRoute({
    name: 'auth.2faSetup',
    surface: 'console',
    method: 'POST',
    path: '/auth/2fa/setup',
    auth: 'authenticated',
    selfService: true,
    sessionOnly: true,
    summary: 'Start TOTP setup: a new secret, active only after a valid code',
    response: TotpSetup,
  }),
  'auth.2faVerify': defineRoute({
    name: 'auth.2faVerify',
    surface: 'console',
    method: 'POST',
    path: '/auth/2fa/verify',
    auth: 'authenticated',
    selfService: true,
    sessionOnly: true,
    summary: 'Confirm TOTP setup with a code; returns 8 recovery codes once',
    body: TotpCode,
    response: RecoveryCodes,
  }),
  'auth.2faDisable': defineRoute({
    name: 'auth.2faDisable',
    surface: 'console',
    method: 'POST',
    path: '/auth/2fa/disable',
    auth: 'authenticated',
    selfService: true,
    sessionOnly: true,
    summary: 'Turn two-factor sign-in off with a TOTP code or an unused recovery code',
    body: TotpCode,
    response: TwoFactorStatus,
  }),
  'auth.2faRecoveryCodes': defineRoute({
    name: 'auth.2faRecoveryCodes',
    surface: 'console',
    method: 'POST',
    path: '/auth/2fa/recovery-codes',
    auth: 'authenticated',
    selfService: true,
    sessionOnly: true,
    summary: 'Replace the recovery codes (needs a TOTP code); the old ones stop working',
    body: TotpCode,
    response: RecoveryCodes,
  }),
  'auth.oidcStart': defineRoute({
    name: 'auth.oidcStart',
    surface: 'console',
    method: 'GET',
    path: '/auth/oidc/start',
    auth: 'public',
    summary: 'Redirect to the OpenID provider (PKCE)',
    raw: true,
  }),
  'auth.oidcCallback': defineRoute({
    name: 'auth.oidcCallback',
    surface: 'console',
    method: 'GET',
    path: '/auth/oidc/callback',
    auth: 'public',
    summary: 'Return from the OpenID provider; sets the session cookie',
    query: OidcCallbackQuery,
    raw: true,
  }),
} satisfies Record<string, RouteContract>;
