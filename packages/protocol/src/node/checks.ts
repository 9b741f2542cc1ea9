/**
 * `@svc/protocol/node/checks`: the service-check probe shared by the hub and the agent (decisions 0079 and
 * 0084). An entry of its own, so that the agent's bundle holds it only in the chunk it loads on the first
 * `check.run` (decision 0067), not beside `takeBytes` in the code every agent loads.
 */
export {
  evaluateHttp,
  runProbe,
  type HttpExpectation,
  type ProbeOptions,
  type ProbeOutcome,
} from './check-probes.js';
export { formatCheckTarget, parseCheckTarget, type CheckTarget } from './check-targets.js';
