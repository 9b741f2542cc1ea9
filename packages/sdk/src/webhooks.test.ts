import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { verifyWebhookSignature, webhookSignature } from './webhooks.js';

/** The test vector published in docs/webhooks.md, read from the document itself. */
function publishedVector(): { secret: string; timestamp: string; body: string; signature: string } {
  const doc = fs.readFileSync(new URL('../../../docs/webhooks.md', import.meta.url), 'utf8');
  const row = (name: string) => {
    const match = new RegExp(`^\\| ${name} +\\| \`(.+?)\` *\\|$`, 'm').exec(doc);
    if (!match?.[1]) throw new Error(`no ${name} in the test vector`);
    return match[1];
  };
  return {
    secret: row('secret'),
    timestamp: row('timestamp'),
    body: row('body'),
    signature: row('signature'),
  };
}

describe('webhook signature verifier', () => {
  const vector = publishedVector();
  const now = new Date(vector.timestamp);

  it('computes the published test vector', () => {
    expect(webhookSignature(vector.secret, vector.timestamp, vector.body)).toBe(vector.signature);
  });

  it('accepts the published vector within the tolerance', () => {
    expect(verifyWebhookSignature({ ...vector, now })).toEqual({ valid: true });
    expect(
      verifyWebhookSignature({
        ...vector,
        body: Buffer.from(vector.body),
        now: new Date(now.getTime() + 299_000),
      }),
    ).toEqual({ valid: true });
  });

  it('rejects old and future timestamps', () => {
    for (const offset of [301_000, -301_000]) {
      expect(verifyWebhookSignature({ ...vector, now: new Date(now.getTime() + offset) })).toEqual({
        valid: false,
        reason: 'stale_timestamp',
      });
    }
    expect(
      verifyWebhookSignature({ ...vector, now: new Date(now.getTime() + 3_600_000), toleranceS: 7200 }),
    ).toEqual({ valid: true });
  });

  it('rejects a changed body, timestamp or secret, and malformed headers', () => {
    const mismatch = { valid: false, reason: 'mismatch' };
    expect(verifyWebhookSignature({ ...vector, body: `${vector.body} `, now })).toEqual(mismatch);
    expect(verifyWebhookSignature({ ...vector, secret: 'another secret', now })).toEqual(mismatch);
    const later = '2026-11-25T21:30:01.000Z';
    expect(verifyWebhookSignature({ ...vector, timestamp: later, now })).toEqual(mismatch);
    expect(verifyWebhookSignature({ ...vector, signature: vector.signature.slice(0, -2), now })).toEqual({
      valid: false,
      reason: 'malformed_signature',
    });
    expect(verifyWebhookSignature({ ...vector, signature: vector.signature.slice(7), now })).toEqual({
      valid: false,
      reason: 'malformed_signature',
    });
    expect(verifyWebhookSignature({ ...vector, timestamp: '1764106200', now })).toEqual({
      valid: false,
      reason: 'malformed_timestamp',
    });
  });
});
