/** Seeds a fresh hub data folder (SQLite) with N agent assets; returns the owner key. Used by api and probes. */
import { createHub, localOwnerContext, parseEnv, silentLogger } from '@svc/hub';
import { newId } from '@svc/protocol';

const platforms = ['linux', 'windows', 'macos', 'freebsd', 'other'];

export async function seedAssets(dataDir: string, assetCount: number): Promise<string> {
  const config = parseEnv({ SVC_DATA_DIR: dataDir, SVC_TLS_MODE: 'disabled', SVC_BCRYPT_COST: '4' }, dataDir);
  const hub = await createHub({ config, logger: silentLogger });
  const now = new Date().toISOString();
  await hub.database.db.transaction().execute(async (trx) => {
    for (let i = 0; i < assetCount; i += 500) {
      const rows = Array.from({ length: Math.min(500, assetCount - i) }, (_, j) => ({
        id: newId('asset'),
        name: `host-${String(i + j).padStart(5, '0')}`,
        hostname: `host-${i + j}.lan`,
        platform: platforms[(i + j) % platforms.length] ?? 'other',
        status: (i + j) % 3 === 0 ? 'online' : 'offline',
        source: 'agent',
        ip_addresses: JSON.stringify([`10.${(i + j) >> 16}.${((i + j) >> 8) & 255}.${(i + j) & 255}`]),
        mac_address: null,
        tags: JSON.stringify(['bench']),
        description: null,
        last_seen_at: now,
        agent_version: '0.1.0',
        agent_connected_at: null,
        agent_low_power: 0,
        hub_host: 0,
        created_at: now,
        updated_at: now,
      }));
      await trx.insertInto('assets').values(rows).execute();
    }
  });
  const key = (await hub.services.apiKeys.rotateOwnerToken(await localOwnerContext(hub.database.db))).raw_key;
  await hub.close();
  if (!key) throw new Error('no owner key');
  return key;
}

if (process.argv[1]?.endsWith('seed-assets.ts')) {
  const [dir, count] = process.argv.slice(2);
  if (!dir) throw new Error('usage: seed-assets.ts <dataDir> [count]');
  process.stdout.write(`${await seedAssets(dir, Number(count ?? 10_000))}\n`);
}
