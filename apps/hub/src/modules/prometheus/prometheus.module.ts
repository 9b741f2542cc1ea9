import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { Logger } from '../../platform/logger.js';
import type { LiveOutbound } from '../../platform/outbound/live-policy.js';
import type { SecretBox } from '../../platform/secret-box.js';
import type { AssetService } from '../assets/assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import type { GroupService } from '../groups/groups.service.js';
import type { MetricsExportService } from '../metrics/metrics-export.service.js';
import { defineModule } from '../module.js';
import { prometheusRawRoutes, prometheusRoutes } from './prometheus.routes.js';
import { createPrometheusService } from './prometheus.service.js';
import { createRemoteWriteSender, type RemoteWriteOptions } from './remote-write/sender.js';

export type { RemoteWriteOptions, RemoteWriteSender } from './remote-write/sender.js';

/**
 * Prometheus: the fleet as HTTP service discovery targets (decision 0074), and the stored metrics sent to a
 * remote-write receiver by the one process holding the sender's lease (decision 0075).
 */
export function createPrometheusModule(deps: {
  db: Kysely<Database>;
  clock: Clock;
  logger: Logger;
  audit: AuditService;
  box: SecretBox;
  outbound: LiveOutbound;
  assets: Pick<AssetService, 'list' | 'names'>;
  groups: Pick<GroupService, 'list' | 'get'>;
  metrics: MetricsExportService;
  /** False while another hub process holds the sender's lease (decision 0040). */
  runsHere: () => boolean;
  remoteWrite?: Partial<RemoteWriteOptions>;
}) {
  const prometheus = createPrometheusService(deps);
  const remoteWrite = createRemoteWriteSender({
    ...deps,
    ...(deps.remoteWrite ? { options: deps.remoteWrite } : {}),
  });
  return defineModule({
    name: 'prometheus',
    services: { prometheus, remoteWrite },
    handlers: prometheusRoutes(prometheus),
    rawHandlers: prometheusRawRoutes(prometheus),
    start: () => {
      remoteWrite.start();
    },
    close: () => remoteWrite.close(),
  });
}
