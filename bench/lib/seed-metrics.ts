/** Seeds one asset of a fresh hub data folder (SQLite) with `days` of samples, one every `intervalS` seconds. */
import { createHub, parseEnv, silentLogger } from '@svc/hub';

export async function seedMetrics(
  dataDir: string,
  assetName: string,
  days: number,
  intervalS: number,
): Promise<{ assetId: string; samples: number }> {
  const config = parseEnv(
    { SVC_DATA_DIR: dataDir, SVC_TLS_MODE: 'disabled', SVC_METRICS_RETENTION_DAYS: String(days + 1) },
    dataDir,
  );
  const hub = await createHub({ config, logger: silentLogger });
  const db = hub.database.db;
  const asset = await db
    .selectFrom('assets')
    .select('id')
    .where('name', '=', assetName)
    .executeTakeFirstOrThrow();
  const gib = 1024 ** 3;
  const end = Math.floor(Date.now() / 1000);
  const count = Math.floor((days * 86_400) / intervalS);
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < count; i += 500) {
      const rows = Array.from({ length: Math.min(500, count - i) }, (_, j) => {
        const k = i + j;
        return {
          asset_id: asset.id,
          ts: new Date((end - (count - k) * intervalS) * 1000).toISOString(),
          cpu_percent: 30 + 25 * Math.sin(k / 360) + (k % 7) * 2,
          memory_used_bytes: Math.round((6 + Math.sin(k / 8640)) * gib),
          memory_total_bytes: 16 * gib,
          disk_used_bytes: 200 * gib + k * 1024,
          disk_total_bytes: 480 * gib,
          load1: 1 + Math.sin(k / 90),
          net_rx_bytes: 40 * 1024 * 1024 + (k % 10) * 8192,
          net_tx_bytes: 8 * 1024 * 1024 + (k % 5) * 4096,
        };
      });
      await trx.insertInto('metric_samples').values(rows).execute();
    }
  });
  await hub.close();
  return { assetId: asset.id, samples: count };
}

/**
 * Gives every asset of a fresh hub data folder (SQLite) one sample stamped now, CPU spread over 0–99 %: what
 * the fleet's top-N ranks (it reads each asset's latest sample of the last 5 minutes).
 */
export async function seedLatestSamples(dataDir: string): Promise<number> {
  const config = parseEnv({ SVC_DATA_DIR: dataDir, SVC_TLS_MODE: 'disabled' }, dataDir);
  const hub = await createHub({ config, logger: silentLogger });
  const db = hub.database.db;
  const assets = await db.selectFrom('assets').select('id').orderBy('id').execute();
  const gib = 1024 ** 3;
  const ts = new Date().toISOString();
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < assets.length; i += 500) {
      const rows = assets.slice(i, i + 500).map(({ id }, j) => ({
        asset_id: id,
        ts,
        cpu_percent: (i + j) % 100,
        memory_used_bytes: ((i + j) % 16) * gib,
        memory_total_bytes: 16 * gib,
        disk_used_bytes: ((i + j) % 480) * gib,
        disk_total_bytes: 480 * gib,
        load1: ((i + j) % 40) / 10,
        net_rx_bytes: 1024 * 1024,
        net_tx_bytes: 512 * 1024,
      }));
      await trx.insertInto('metric_samples').values(rows).execute();
    }
  });
  await hub.close();
  return assets.length;
}
