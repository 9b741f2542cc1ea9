/** Schemas of TLS status, console sign-in and two-factor authentication. */
import { Type, type Static } from 'typebox';
import { roles } from './roles.js';

const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const tlsModes = ['auto', 'external', 'disabled'] as const;
export const tlsSources = ['builtin', 'external', 'uploaded', 'disabled'] as const;
const TlsMode = Type.Enum<[...typeof tlsModes]>([...tlsModes]);
const TlsSource = Type.Enum<[...typeof tlsSources]>([...tlsSources]);

export const CertificateDetails = Type.Object({
  subject: Type.String(),
  issuer: Type.String(),
  not_before: Timestamp,
  not_after: Timestamp,
  fingerprint_sha256: Type.String(),
  subject_alt_names: Type.Array(Type.String()),
  is_ca: Type.Boolean(),
});
export type CertificateDetails = Static<typeof CertificateDetails>;

export const TlsStatus = Type.Object({
  mode: TlsMode,
  source: TlsSource,
  certificate: Nullable(CertificateDetails),
  ca: Nullable(CertificateDetails),
  ca_download: Type.Boolean(),
  renews_at: Nullable(Timestamp),
  override_uploaded_at: Nullable(Timestamp),
});
export type TlsStatus = Static<typeof TlsStatus>;

export const TlsInfo = Type.Object({
  mode: TlsMode,
  source: TlsSource,
  fingerprint_sha256: Nullable(
    Type.String({
      description:
        'SHA-256 of the server certificate the hub serves now; it changes at every renewal. Not the value for svc-agent enroll --ca-fingerprint',
    }),
  ),
  expires_at: Nullable(Timestamp),
  ca_fingerprint_sha256: Nullable(
    Type.String({
      description:
        "SHA-256 of the hub's own CA certificate (GET /api/v1/tls/ca.crt): the value for svc-agent enroll --ca-fingerprint. Null when the hub does not serve its own CA",
    }),
  ),
});
export type TlsInfo = Static<typeof TlsInfo>;

export const TlsUpload = Type.Object(
  {
    certificate: Type.String({ minLength: 1, maxLength: 65_536 }),
    private_key: Type.String({ minLength: 1, maxLength: 65_536 }),
  },
  { additionalProperties: false },
);
export type TlsUpload = Static<typeof TlsUpload>;

// ---- console sign-in ----
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

export const AggregateStatus = Type.Object({
  scope: Type.Enum<['all', 'restricted']>(['all', 'restricted']),
  assets: Type.Object({
    total: Type.Integer({ minimum: 0 }),
    online: Type.Integer({ minimum: 0 }),
    offline: Type.Integer({ minimum: 0 }),
    unknown: Type.Integer({ minimum: 0 }),
  }),
  groups: Type.Integer({ minimum: 0 }),
  generated_at: Timestamp,
});
export type AggregateStatus = Static<typeof AggregateStatus>;

export const SignedOut = Type.Object({ signed_out: Type.Boolean() });
export type SignedOut = Static<typeof SignedOut>;

export const RestartResult = Type.Object({ restarting: Type.Boolean(), message: Type.String() });
export type RestartResult = Static<typeof RestartResult>;
