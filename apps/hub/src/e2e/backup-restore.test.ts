/**
 * End to end: `svc-hub backup` beside a running hub process, `svc-hub restore` into a new directory, and a hub
 * process started on it: the same CA (agents keep trusting it), ready at once. The data itself (assets, keys,
 * settings, secrets) is checked in apps/hub/src/ops/backup.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tlsRequest } from '@svc/testkit';
import { fetchHubTrust, freePort, hubCli, killChildren, startHubProcess, waitForHub } from './support.js';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-backup-'));
afterAll(async () => {
  await killChildren();
  fs.rmSync(work, { recursive: true, force: true });
});

async function startOn(dataDir: string) {
  const httpsPort = await freePort();
  const hub = startHubProcess({ dataDir, httpPort: await freePort(), httpsPort });
  const baseUrl = `https://127.0.0.1:${String(httpsPort)}`;
  await waitForHub(baseUrl, hub);
  return { hub, baseUrl, trust: await fetchHubTrust(baseUrl) };
}

describe('svc-hub backup and restore, as processes', () => {
  // Two hub processes started, a backup and a restore: about 20 s on a loaded 2-core CI machine; bounded at 60 s.
  it(
    'backs up a running hub; a hub on the restored directory serves the same CA and is ready',
    { timeout: 60_000 },
    async () => {
      const original = await startOn(path.join(work, 'data'));
      const archive = path.join(work, 'hub.svcbackup');

      const backup = await hubCli(['backup', archive], { SVC_DATA_DIR: path.join(work, 'data') });
      expect(backup.output).toContain('The hub key is NOT in this backup');
      expect(backup.code).toBe(0);
      await original.hub.stop();

      const restoredDir = path.join(work, 'restored');
      const restore = await hubCli(
        ['restore', archive, '--key-file', path.join(work, 'data', 'encryption.key')],
        { SVC_DATA_DIR: restoredDir },
      );
      expect(restore.output).toContain('Restored a backup');
      expect(restore.code).toBe(0);

      const restored = await startOn(restoredDir);
      expect(restored.trust.caFingerprint).toBe(original.trust.caFingerprint);
      const ready = await tlsRequest(`${restored.baseUrl}/readyz`, { ca: restored.trust.caPem });
      expect(ready.status).toBe(200);
      expect(JSON.parse(ready.body)).toEqual({ status: 'ready' });

      const dry = await hubCli(['migrate', '--dry-run'], { SVC_DATA_DIR: restoredDir });
      expect(dry.output).toContain('up to date');
      expect(dry.code).toBe(0);
    },
  );
});
