/**
 * AES-256-GCM for every secret the hub keeps at rest (TOTP secrets, uploaded and CA private keys, later
 * connector credentials and webhook secrets). Each sealed value names the key that sealed it, so the hub key
 * can be rotated: new values use the current key, old ones still open with the retired keys.
 *
 * Sealed form: `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url parts).
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface SecretBox {
  readonly keyId: string;
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
  /**
   * 32-byte keys derived with HKDF-SHA256 for another use, named by `info`: the current key's first, then the
   * retired keys'. The hub key itself never leaves the box.
   */
  deriveKeys(info: string): Buffer[];
}

export class SecretBoxError extends Error {}

function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 8);
}

function parseKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) {
    throw new SecretBoxError(
      `${source} must be 32 bytes as 64 hex characters or base64 (e.g. openssl rand -hex 32)`,
    );
  }
  return key;
}

/**
 * @param current the key new values are sealed with
 * @param retired keys that may still open older values
 * `context` binds a value to its place (e.g. `totp:<user id>`): a sealed value copied elsewhere will not open.
 */
export function createSecretBox(current: Buffer, retired: readonly Buffer[] = []): SecretBox {
  const keys = new Map<string, Buffer>([current, ...retired].map((k) => [keyIdOf(k), k]));
  const keyId = keyIdOf(current);
  return {
    keyId,
    seal(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [
        'v1',
        keyId,
        iv.toString('base64url'),
        tag.toString('base64url'),
        ciphertext.toString('base64url'),
      ].join('.');
    },
    open(sealed, context) {
      const parts = sealed.split('.');
      if (parts.length !== 5 || parts[0] !== 'v1') throw new SecretBoxError('not a sealed value');
      const [, id, iv, tag, ciphertext] = parts as [string, string, string, string, string];
      const key = keys.get(id);
      if (!key)
        throw new SecretBoxError(`sealed with unknown key ${id}: was the hub encryption key replaced?`);
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([
          decipher.update(Buffer.from(ciphertext, 'base64url')),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        throw new SecretBoxError('sealed value failed authentication');
      }
    },
    deriveKeys(info) {
      return [current, ...retired].map((key) =>
        Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), info, 32)),
      );
    },
  };
}

export const encryptionKeyFile = 'encryption.key';

/**
 * The hub key: SVC_ENCRYPTION_KEY when given, else `<dataDir>/encryption.key`, made (0600) on first run.
 * Retired keys (SVC_ENCRYPTION_KEYS_RETIRED, comma-separated) still open older values.
 */
export function loadSecretBox(options: {
  dataDir: string;
  key: string | null;
  retired: readonly string[];
}): SecretBox {
  let current: Buffer;
  if (options.key) {
    current = parseKey(options.key, 'SVC_ENCRYPTION_KEY');
  } else {
    const file = path.join(options.dataDir, encryptionKeyFile);
    if (fs.existsSync(file)) {
      current = parseKey(fs.readFileSync(file, 'utf8'), file);
    } else {
      fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
      current = randomBytes(32);
      fs.writeFileSync(file, `${current.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    }
  }
  const retired = options.retired.map((k, i) => parseKey(k, `SVC_ENCRYPTION_KEYS_RETIRED[${i}]`));
  return createSecretBox(current, retired);
}
