/**
 * A platform authenticator in software, for hub tests of the device-owner checks (decision 0033): a P-256 key
 * pair, registration answers with `none` attestation, and assertions signed with user presence and user
 * verification set (or without verification, when asked), shaped as `@simplewebauthn/browser` sends them.
 */
import crypto from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const flags = { userPresent: 0x01, userVerified: 0x04, attestedData: 0x40 } as const;

function b64url(bytes: Uint8Array | string): string {
  return Buffer.from(bytes).toString('base64url');
}

function sha256(data: Uint8Array | string): Buffer {
  return crypto.createHash('sha256').update(data).digest();
}

function counter(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
}

export interface SoftAuthenticator {
  /** The answer to registration options, for `POST /api/mobile/webauthn/registrations`. */
  register(options: { challenge: string; rp: { id?: string } }): Record<string, unknown>;
  /** The answer to proof options, for `POST /api/mobile/webauthn/proofs`. */
  assert(options: { challenge: string; rpId?: string }, userVerified?: boolean): Record<string, unknown>;
}

/** `origin` is what the page's clientDataJSON names: the hub's origin as the browser saw it. */
export function createSoftAuthenticator(origin: string): SoftAuthenticator {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const credentialId = crypto.randomBytes(16);
  let signCount = 0;

  const clientData = (type: string, challenge: string) =>
    Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));

  return {
    register(options) {
      const rpId = options.rp.id ?? new URL(origin).hostname;
      const coseKey = new Map<number, number | Uint8Array>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x ?? '', 'base64url')],
        [-3, Buffer.from(jwk.y ?? '', 'base64url')],
      ]);
      const idLength = Buffer.alloc(2);
      idLength.writeUInt16BE(credentialId.length);
      const authData = Buffer.concat([
        sha256(rpId),
        Buffer.from([flags.userPresent | flags.userVerified | flags.attestedData]),
        counter(signCount),
        Buffer.alloc(16), // aaguid
        idLength,
        credentialId,
        Buffer.from(isoCBOR.encode(coseKey)),
      ]);
      const noStatement = new Map<string, string>();
      const attestation = new Map<string, string | Uint8Array | Map<string, string>>([
        ['fmt', 'none'],
        ['attStmt', noStatement],
        ['authData', authData],
      ]);
      return {
        id: b64url(credentialId),
        rawId: b64url(credentialId),
        type: 'public-key',
        authenticatorAttachment: 'platform',
        clientExtensionResults: {},
        response: {
          clientDataJSON: b64url(clientData('webauthn.create', options.challenge)),
          attestationObject: b64url(isoCBOR.encode(attestation)),
          transports: ['internal'],
        },
      };
    },

    assert(options, userVerified = true) {
      const rpId = options.rpId ?? new URL(origin).hostname;
      signCount += 1;
      const authData = Buffer.concat([
        sha256(rpId),
        Buffer.from([flags.userPresent | (userVerified ? flags.userVerified : 0)]),
        counter(signCount),
      ]);
      const data = clientData('webauthn.get', options.challenge);
      const signature = crypto.sign('sha256', Buffer.concat([authData, sha256(data)]), privateKey);
      return {
        id: b64url(credentialId),
        rawId: b64url(credentialId),
        type: 'public-key',
        authenticatorAttachment: 'platform',
        clientExtensionResults: {},
        response: {
          clientDataJSON: b64url(data),
          authenticatorData: b64url(authData),
          signature: b64url(signature),
        },
      };
    },
  };
}
