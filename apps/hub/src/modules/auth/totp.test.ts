import { describe, expect, it } from 'vitest';
import { matchTotp, newTotpSecret, timeStepOf, totpCodeAt, totpUri, type TotpAlgorithm } from './totp.js';

/** RFC 4648 base32 (uppercase), written here independently of the code under test. */
function base32(ascii: string, padding = false): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of Buffer.from(ascii, 'ascii')) bits += byte.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5)
    out += alphabet.charAt(parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2));
  if (padding) while (out.length % 8 !== 0) out += '=';
  return out;
}

// RFC 6238 appendix B: the seeds are the ASCII digits repeated to the hash's key length.
const seeds: Record<TotpAlgorithm, string> = {
  sha1: '12345678901234567890',
  sha256: '12345678901234567890123456789012',
  sha512: '1234567890123456789012345678901234567890123456789012345678901234',
};

// [time, sha1, sha256, sha512], from the RFC's table.
const rfcTable: [number, string, string, string][] = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

const vectors = rfcTable.flatMap(([time, sha1, sha256, sha512]) => [
  { time, algorithm: 'sha1' as const, expected: sha1 },
  { time, algorithm: 'sha256' as const, expected: sha256 },
  { time, algorithm: 'sha512' as const, expected: sha512 },
]);

describe('totpCodeAt (RFC 6238 appendix B)', () => {
  it.each(vectors)('T=$time $algorithm → $expected', ({ time, algorithm, expected }) => {
    expect(totpCodeAt(base32(seeds[algorithm]), time, { digits: 8, algorithm })).toBe(expected);
  });

  it('reads a base32 secret the same with or without "=" padding', () => {
    // The 64-byte SHA-512 seed needs padding (103 characters unpadded); the 20-byte one does not.
    const unpadded = base32(seeds.sha512);
    expect(unpadded.length % 8).not.toBe(0);
    expect(totpCodeAt(base32(seeds.sha512, true), 59, { digits: 8, algorithm: 'sha512' })).toBe(
      totpCodeAt(unpadded, 59, { digits: 8, algorithm: 'sha512' }),
    );
  });

  it('defaults to what authenticator apps use: SHA-1, 6 digits (the last 6 of the 8-digit code)', () => {
    for (const [time, sha1] of rfcTable) {
      expect(totpCodeAt(base32(seeds.sha1), time)).toBe(sha1.slice(2));
    }
  });
});

describe('timeStepOf', () => {
  it('counts 30-second steps from the epoch', () => {
    expect(timeStepOf(0)).toBe(0);
    expect(timeStepOf(29)).toBe(0);
    expect(timeStepOf(30)).toBe(1);
    expect(timeStepOf(59)).toBe(1);
    expect(timeStepOf(1111111109)).toBe(37037036);
  });
});

describe('matchTotp', () => {
  const secret = base32(seeds.sha1);
  // 1111111110 is the start of step 37037037; test at the start, the middle and the last second of it.
  const stepStart = 1111111110;
  const step = timeStepOf(stepStart);
  const codeFor = (s: number) => totpCodeAt(secret, s * 30);

  it('checks that the codes around the step are all different (so the cases below mean something)', () => {
    const codes = [-2, -1, 0, 1, 2].map((d) => codeFor(step + d));
    expect(new Set(codes).size).toBe(5);
  });

  it.each([0, 15, 29])('accepts the current step and one either side, %i s into the step', (into) => {
    const now = new Date((stepStart + into) * 1000);
    expect(matchTotp(secret, codeFor(step), now)).toBe(step);
    expect(matchTotp(secret, codeFor(step - 1), now)).toBe(step - 1);
    expect(matchTotp(secret, codeFor(step + 1), now)).toBe(step + 1);
  });

  it.each([0, 15, 29])('refuses a code two steps away, %i s into the step', (into) => {
    const now = new Date((stepStart + into) * 1000);
    expect(matchTotp(secret, codeFor(step - 2), now)).toBeNull();
    expect(matchTotp(secret, codeFor(step + 2), now)).toBeNull();
  });

  it('refuses anything that is not exactly six digits, even around a valid code', () => {
    const now = new Date(stepStart * 1000);
    const valid = codeFor(step);
    expect(matchTotp(secret, valid, now)).toBe(step);
    const eightDigits = totpCodeAt(secret, stepStart, { digits: 8 });
    for (const input of [
      '',
      valid.slice(0, 5),
      `${valid}0`,
      ` ${valid}`,
      `${valid} `,
      `${valid.slice(0, 3)} ${valid.slice(3)}`,
      `${valid.slice(0, 5)}a`,
      eightDigits,
      '１２３４５６', // full-width digits
    ]) {
      expect(matchTotp(secret, input, now), JSON.stringify(input)).toBeNull();
    }
  });

  it('refuses the code of another secret', () => {
    const now = new Date(stepStart * 1000);
    const other = base32('abcdefghijabcdefghij');
    const foreign = totpCodeAt(other, stepStart);
    const own = [-1, 0, 1].map((d) => codeFor(step + d));
    expect(own).not.toContain(foreign);
    expect(matchTotp(secret, foreign, now)).toBeNull();
  });
});

describe('newTotpSecret and totpUri', () => {
  it('makes a fresh 160-bit base32 secret each time', () => {
    const a = newTotpSecret();
    const b = newTotpSecret();
    expect(a).toMatch(/^[A-Z2-7]{32}$/);
    expect(b).toMatch(/^[A-Z2-7]{32}$/);
    expect(a).not.toBe(b);
    // usable as a secret: yields a 6-digit code
    expect(totpCodeAt(a, 1_800_000_000)).toMatch(/^\d{6}$/);
  });

  it('puts the secret, the issuer and the user into an otpauth:// URI', () => {
    const secret = newTotpSecret();
    const uri = new URL(totpUri(secret, 'alice.ops'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/svc hub:alice.ops');
    expect(uri.searchParams.get('secret')).toBe(secret);
    expect(uri.searchParams.get('issuer')).toBe('svc hub');
  });
});
