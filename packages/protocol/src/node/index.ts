/** `@svc/protocol/node`: the protocol's Node-only helpers (Buffer, sockets), kept out of the browser's entry. */
export { takeBytes } from './bytes.js';
export {
  evaluateHttp,
  runProbe,
  type HttpExpectation,
  type ProbeOptions,
  type ProbeOutcome,
} from './check-probes.js';
export { formatCheckTarget, parseCheckTarget, type CheckTarget } from './check-targets.js';
