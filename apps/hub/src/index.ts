/** What other workspaces (testkit, bench) may use of the hub. */
export { createHub, type Hub, type HubOptions, type Services } from './hub.js';
export { systemOwnerContext } from './access/principal.js';
export { localOwnerContext } from './modules/users/users.module.js';
export { parseEnv, ConfigError, type HubConfig } from './config/env.js';
export { ManualClock, systemClock, type Clock } from './platform/clock.js';
export { silentLogger, createLogger } from './platform/logger.js';
export { buildOpenApiDocument } from './http/openapi.js';
export { httpsServerFactory, startServers, type RunningServers } from './server.js';
export { createSecretBox, type SecretBox } from './platform/secret-box.js';
export {
  createPasswordHasher,
  realBcrypt,
  type BcryptFunctions,
  type PasswordHasher,
} from './platform/password-hasher.js';
export { createCertificateAuthority, issueServerCertificate } from './platform/tls/certificates.js';
export {
  createLocalClusterBus,
  createMemoryClusterNetwork,
  newNodeId,
  type ClusterBus,
  type ClusterMessageMeta,
  type ClusterRequestOptions,
  type ClusterRespondOptions,
  type MemoryClusterNetwork,
} from './platform/cluster/cluster-bus.js';
export { createSingleNodeRegistry, type NodeRegistry } from './platform/cluster/node-registry.js';
export { createDbNodeRegistry, type DbNodeRegistry } from './platform/cluster/db-node-registry.js';
export { createNatsClusterBus } from './platform/cluster/nats-bus.js';
export type { Cluster } from './platform/cluster/cluster.js';
export { issueFromBuiltInCa } from './platform/tls/tls-manager.js';
export { openDatabase } from './platform/db/database.js';
