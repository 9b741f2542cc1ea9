/**
 * An internal call's answer is handed to its caller in the process, and no other request's answer is touched:
 * not one from the network, not one that names a token no call is waiting on.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createInternalDispatch } from './internal-dispatch.js';

function requestWith(headers: Record<string, string>, injected: boolean): IncomingMessage {
  return { headers, ...(injected ? { _lightMyRequest: {} } : {}) } as unknown as IncomingMessage;
}

describe('keepAnswer', () => {
  it('leaves every answer alone while no internal call is in flight, or for a token no call has', () => {
    const dispatch = createInternalDispatch();
    const body = '{"request_id":"req_1","data":[]}';
    expect(dispatch.keepAnswer(requestWith({}, false), body)).toBe(body);
    expect(dispatch.keepAnswer(requestWith({ 'x-svc-internal-call': 'guess' }, true), body)).toBe(body);
    expect(dispatch.keepAnswer(requestWith({ 'x-svc-internal-call': 'guess' }, false), body)).toBe(body);
    const stream = { pipe: () => undefined };
    expect(dispatch.keepAnswer(requestWith({}, true), stream)).toBe(stream);
  });
});
