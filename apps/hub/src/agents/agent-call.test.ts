import { describe, expect, it } from 'vitest';
import { AgentOfflineError, AgentReplyError, AgentTimeoutError } from './agent-gateway.js';
import { HubError } from '../platform/hub-error.js';
import { agentFailure, offlineMessage } from './agent-call.js';

const row = { id: 'ast_1', name: 'db-1', last_seen_at: '2026-11-20T09:30:00+01:00' };

describe('agent failures in the hub catalog', () => {
  it('writes last seen as UTC ISO 8601, or "never"', () => {
    expect(offlineMessage(row)).toBe('asset db-1 (ast_1) is offline (last seen: 2026-11-20T08:30:00.000Z)');
    expect(offlineMessage({ ...row, last_seen_at: null })).toBe(
      'asset db-1 (ast_1) is offline (last seen: never)',
    );
  });

  it('maps offline to 409, no answer to 503, and says what the host lacks', () => {
    const offline = agentFailure(new AgentOfflineError('ast_1'), row, 'files.list') as HubError;
    const late = agentFailure(
      new AgentTimeoutError('ast_1', 'system.packages'),
      row,
      'system.packages',
    ) as HubError;
    const noPkg = agentFailure(new AgentReplyError('unsupported', ''), row, 'system.packages') as HubError;
    expect([offline.status, offline.code]).toEqual([409, 'asset_offline']);
    expect([late.status, late.code, late.message]).toEqual([
      503,
      'unavailable',
      'asset db-1 (ast_1) did not answer system.packages in time',
    ]);
    expect([noPkg.status, noPkg.message]).toEqual([
      409,
      'asset db-1 (ast_1): this host has no supported package manager (dpkg, rpm, apk)',
    ]);
  });

  it('leaves errors that are not the gateway alone', () => {
    const bug = new TypeError('x is undefined');
    expect(agentFailure(bug, row, 'files.list')).toBe(bug);
  });
});
