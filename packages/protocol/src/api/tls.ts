/** TLS: the certificate status, and what agents fetch before they trust the hub (transport surface). */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { Maybe, Timestamp } from './shared.js';

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
  certificate: Maybe(CertificateDetails),
  ca: Maybe(CertificateDetails),
  ca_download: Type.Boolean(),
  renews_at: Maybe(Timestamp),
  override_uploaded_at: Maybe(Timestamp),
});
export type TlsStatus = Static<typeof TlsStatus>;

export const TlsInfo = Type.Object({
  mode: TlsMode,
  source: TlsSource,
  fingerprint_sha256: Maybe(
    Type.String({
      description:
        'SHA-256 of the server certificate the hub serves now; it changes at every renewal. Not the value for svc-agent enroll --ca-fingerprint',
    }),
  ),
  expires_at: Maybe(Timestamp),
  dns_names: Type.Array(Type.String(), {
    description:
      "The DNS names of the server certificate the hub serves now: the names a browser may open it by (passkeys need one; an IP address cannot be WebAuthn's relying party). Empty when the hub serves no certificate of its own",
  }),
  ca_fingerprint_sha256: Maybe(
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

export const tlsContracts = {
  'tls.caCert': defineRoute({
    name: 'tls.caCert',
    surface: 'transport',
    method: 'GET',
    path: '/tls/ca.crt',
    auth: 'public',
    summary: 'The built-in CA certificate (PEM); 404 when the hub does not serve its own CA',
    raw: true,
  }),
  'tls.info': defineRoute({
    name: 'tls.info',
    surface: 'transport',
    method: 'GET',
    path: '/tls/info',
    auth: 'public',
    summary:
      "TLS mode, the server certificate's fingerprint and expiry, and the CA's fingerprint (the one agents pin)",
    response: TlsInfo,
  }),
} satisfies Record<string, RouteContract>;
