/** `@svc/protocol/node`: the protocol's Node-only helpers (Buffer), kept out of the browser's entry. */
export { takeBytes } from './bytes.js';
