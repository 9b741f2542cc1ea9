import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, encryptionKeyFile, loadSecretBox, SecretBoxError } from './secret-box.js';

describe('secret box (AES-256-GCM at rest)', () => {
  const key = randomBytes(32);

  it('seals to text that names its key and hides the plaintext, and opens it again', () => {
    const box = createSecretBox(key);
    const sealed = box.seal('JBSWY3DPEHPK3PXP-secret', 'totp:usr_1');
    expect(sealed.split('.')).toHaveLength(5);
    expect(sealed.startsWith(`v1.${box.keyId}.`)).toBe(true);
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(box.open(sealed, 'totp:usr_1')).toBe('JBSWY3DPEHPK3PXP-secret');
    expect(box.seal('x', 'c')).not.toBe(box.seal('x', 'c'));
  });

  it('refuses a tampered value, another context and another key', () => {
    const box = createSecretBox(key);
    const sealed = box.seal('secret', 'totp:usr_1');
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[4]!, 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    parts[4] = flipped.toString('base64url');
    expect(() => box.open(parts.join('.'), 'totp:usr_1')).toThrow(SecretBoxError);
    expect(() => box.open(sealed, 'totp:usr_2')).toThrow(SecretBoxError);
    expect(() => createSecretBox(randomBytes(32)).open(sealed, 'totp:usr_1')).toThrow(/unknown key/);
    expect(() => box.open('garbage', 'totp:usr_1')).toThrow(SecretBoxError);
  });

  it('derives keys per use, current first, that are neither the hub key nor each other', () => {
    const oldKey = randomBytes(32);
    const derived = createSecretBox(key, [oldKey]).deriveKeys('svc-hub test v1');
    expect(derived).toHaveLength(2);
    expect(derived[0]).toEqual(createSecretBox(key).deriveKeys('svc-hub test v1')[0]);
    expect(derived[1]).toEqual(createSecretBox(oldKey).deriveKeys('svc-hub test v1')[0]);
    expect(derived[0]?.equals(key)).toBe(false);
    expect(derived[0]?.equals(createSecretBox(key).deriveKeys('svc-hub other v1')[0] ?? key)).toBe(false);
  });

  it('rotates: values sealed with a retired key still open, new ones use the current key', () => {
    const oldKey = randomBytes(32);
    const sealedOld = createSecretBox(oldKey).seal('kept', 'ctx');
    const rotated = createSecretBox(key, [oldKey]);
    expect(rotated.open(sealedOld, 'ctx')).toBe('kept');
    expect(rotated.seal('new', 'ctx').split('.')[1]).toBe(rotated.keyId);
  });

  it('makes a 0600 key file on first run, reuses it, and prefers SVC_ENCRYPTION_KEY', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-box-'));
    const first = loadSecretBox({ dataDir: dir, key: null, retired: [] });
    const file = path.join(dir, encryptionKeyFile);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const sealed = first.seal('x', 'c');
    expect(loadSecretBox({ dataDir: dir, key: null, retired: [] }).open(sealed, 'c')).toBe('x');
    const fromEnv = loadSecretBox({ dataDir: dir, key: randomBytes(32).toString('hex'), retired: [] });
    expect(fromEnv.keyId).not.toBe(first.keyId);
    expect(() => loadSecretBox({ dataDir: dir, key: 'too-short', retired: [] })).toThrow(/32 bytes/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
