import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnrollmentTokenCreated } from '@svc/protocol';
import { ManualClock } from '@svc/hub';
import { startTestHub, type TestHub } from '@svc/testkit';
import { enrollAgent, killChildren } from './e2e/support.js';
import { startupBanner } from './startup-banner.js';

describe('the start-up log tells how to enroll an agent', () => {
  let t: TestHub;
  let work: string;
  let text: string;

  beforeAll(async () => {
    t = await startTestHub({
      env: { SVC_TLS_MODE: 'auto' },
      listen: true,
      injectAsHttps: true,
      clock: new ManualClock(new Date()),
    });
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-banner-'));
    const lines = startupBanner(t.hub, { ...t.config, host: '127.0.0.1' }, t.servers!);
    text = lines.map((l) => `${l.message} ${JSON.stringify(l.fields)}`).join('\n');
  });
  afterAll(async () => {
    await killChildren();
    await t.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  async function newToken(): Promise<string> {
    const res = await t.request('POST', '/api/v2/enrollment-tokens', {
      body: { name: 'banner', max_uses: 1 },
    });
    expect(res.status, res.text).toBe(201);
    return (res.json.data as EnrollmentTokenCreated).token;
  }

  /** The logged command, run with a real token: what a newcomer copies and pastes. */
  async function runLoggedCommand(caFingerprint: string, name: string) {
    const command = /svc-agent enroll --hub (\S+) --token <[^>]+> --ca-fingerprint (\S+)/.exec(text);
    expect(command, text).not.toBeNull();
    return enrollAgent({
      hubUrl: command![1]!,
      token: await newToken(),
      caFingerprint,
      configPath: path.join(work, name, 'settings.json'),
      hostname: name,
    });
  }

  it('ends with the web console address', () => {
    const last = text.split('\n').at(-1) ?? '';
    expect(last).toContain(`web console: https://localhost:${t.servers!.httpsPort!}/`);
    const wildcard = startupBanner(t.hub, { ...t.config, host: '0.0.0.0' }, t.servers!);
    expect(wildcard.at(-1)?.message).toBe(`web console: https://localhost:${t.servers!.httpsPort!}/`);
    const named = startupBanner(t.hub, { ...t.config, host: 'hub.example.net' }, t.servers!);
    expect(named.at(-1)?.message).toBe(`web console: https://hub.example.net:${t.servers!.httpsPort!}/`);
  });

  it("prints the CA's fingerprint, never the server certificate's, and the exact enroll command", () => {
    const status = t.hub.tls.status();
    const caFingerprint = status.ca!.fingerprint_sha256;
    expect(text).toContain(`CA fingerprint (SHA-256): ${caFingerprint}`);
    expect(text).toContain(
      `svc-agent enroll --hub https://127.0.0.1:${t.servers!.httpsPort!} --token <make one: POST /api/v2/enrollment-tokens> --ca-fingerprint ${caFingerprint}`,
    );
    expect(text).not.toContain(status.certificate!.fingerprint_sha256);
  });

  it('gives a fingerprint that enrollment accepts: the logged command enrolls a real svc-agent', async () => {
    const logged = /--ca-fingerprint (\S+)/.exec(text)![1]!;
    const enrolled = await runLoggedCommand(logged, 'banner-agent');
    expect(enrolled.code, enrolled.output).toBe(0);
    const saved = JSON.parse(fs.readFileSync(path.join(work, 'banner-agent', 'settings.json'), 'utf8')) as {
      ca_fingerprint_sha256: string;
    };
    expect(saved.ca_fingerprint_sha256).toBe(logged);
  }, 60_000);

  it("refuses the server certificate's fingerprint (what the log used to print) without echoing the CA's", async () => {
    const status = t.hub.tls.status();
    const refused = await runLoggedCommand(status.certificate!.fingerprint_sha256, 'wrong-pin');
    expect(refused.code).not.toBe(0);
    expect(refused.output).toMatch(/does not match the pinned/);
    expect(refused.output).not.toContain(status.ca!.fingerprint_sha256);
    expect(fs.existsSync(path.join(work, 'wrong-pin', 'settings.json'))).toBe(false);
  }, 60_000);
});
