export * from './hub-harness.js';
export * from './https-client.js';
export * from './oidc-provider.js';
export * from './fake-agent.js';
export * from './fleet-simulator.js';
export * from './claim-owner.js';
export * from './gated-bcrypt.js';
export * from './upstreams/upstream-server.js';
