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
export { issueFromBuiltInCa } from './platform/tls/tls-manager.js';
