import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHub, type Hub } from '../hub.js';
import { parseEnv } from '../config/env.js';
import { silentLogger } from './logger.js';
import { DataDirLocked, lockFileName } from './data-dir-lock.js';
import { assetRow } from '../testing/asset-row.js';

let work: string;
let dataDir: string;
const opened: Hub[] = [];

beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-hub-lock-'));
  dataDir = path.join(work, 'data');
});
afterEach(async () => {
  for (const hub of opened.splice(0)) await hub.close();
  fs.rmSync(work, { recursive: true, force: true });
});

function start(env: Record<string, string> = {}): Promise<Hub> {
  const config = parseEnv(
    { SVC_DATA_DIR: dataDir, SVC_TLS_MODE: 'disabled', SVC_BCRYPT_COST: '4', ...env },
    work,
  );
  return createHub({ config, logger: silentLogger });
}

describe('one hub per data directory', () => {
  it("refuses a second hub before it touches anything: the first one's agents stay online", async () => {
    const first = await start();
    opened.push(first);
    const now = new Date().toISOString();
    await first.database.db
      .insertInto('assets')
      .values(
        assetRow('ast_online', {
          name: 'connected-elsewhere',
          status: 'online',
          source: 'agent',
          last_seen_at: now,
          agent_connected_at: now,
          created_at: now,
        }),
      )
      .execute();

    const refused = start();
    await expect(refused).rejects.toBeInstanceOf(DataDirLocked);
    await expect(refused).rejects.toThrow(`pid ${process.pid}`);
    const row = await first.database.db
      .selectFrom('assets')
      .select('status')
      .where('id', '=', 'ast_online')
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('online');

    // Once the first has stopped, the directory is free again.
    await first.close();
    opened.splice(0);
    const next = await start();
    opened.push(next);
    expect(next.owner.created).toBe(false);
  });

  it('takes over the lock a hub that died left behind', async () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    const deadPid = Number(gone.stdout.toString());
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(path.join(dataDir, lockFileName), `${deadPid}\n`);
    const hub = await start();
    opened.push(hub);
    expect(fs.readFileSync(path.join(dataDir, lockFileName), 'utf8').trim()).toBe(String(process.pid));
  });
});

describe('a start refused on its settings', () => {
  it('leaves no database, key or lock behind', async () => {
    const missing = path.join(work, 'no-such-cert.pem');
    const env = { SVC_TLS_MODE: 'external', SVC_TLS_CERT: missing, SVC_TLS_KEY: missing };
    await expect(start(env)).rejects.toThrow();
    expect(fs.existsSync(dataDir)).toBe(false);

    // A directory made beforehand (a mounted volume) is left as it was found: empty.
    fs.mkdirSync(dataDir);
    await expect(start(env)).rejects.toThrow();
    expect(fs.readdirSync(dataDir)).toEqual([]);

    // The corrected start is a first start.
    const hub = await start();
    opened.push(hub);
    expect(hub.owner.created).toBe(true);
  });
});
