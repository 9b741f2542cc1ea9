/**
 * Opening a terminal session: the policy, role, owner and device-proof checks, the asset online, the limits
 * per hub and per owner; then its row (and its recording's) written, the agent's `pty` stream opened, and the
 * session held in this process's memory (live-sessions.ts).
 */
import type { Kysely } from 'kysely';
import { newId, type Session, type SessionCreate } from '@svc/protocol';
import type { ActionContext } from '../../access/principal.js';
import { ownerOf } from '../../access/session-access.js';
import { agentFailure } from '../../agents/agent-call.js';
import type { Database } from '../../platform/db/schema.js';
import { HubError } from '../../platform/hub-error.js';
import { policyDisabled } from '../../platform/policy-error.js';
import type { AuditService } from '../audit/audit.service.js';
import type { LiveSessions } from './live-sessions.js';
import type { SessionSweeper } from './session-lifecycle.js';
import { presentSession, type SessionPresenter } from './session-present.js';
import { startTerminalRecorder } from './session-recordings.js';
import type { SessionServiceDeps } from './sessions.service.js';
import {
  insertRecording,
  insertSession,
  listSessions,
  updateRecording,
  updateSession,
  type RemoteSessionRow,
} from './sessions.repository.js';

/** What the service hands the opening of a session. */
export interface OpenParts {
  deps: SessionServiceDeps;
  /** The protocol's session limits with the test's overrides. */
  limits: { perHub: number; perOwner: number; recordingBytes: number };
  nodeId: string;
  live: LiveSessions;
  sweeper: Pick<SessionSweeper, 'track'>;
  presenter: Pick<SessionPresenter, 'localValues'>;
}

/** A new session's row, its recording's and the audit, in one transaction. */
async function insertStarted(
  deps: { db: Kysely<Database>; audit: AuditService },
  ctx: ActionContext,
  row: RemoteSessionRow,
): Promise<void> {
  const { id, recording_id: recordingId, asset_id: assetId, owner_type, owner_id, created_at: now } = row;
  await deps.db.transaction().execute(async (trx) => {
    await insertSession(trx, row);
    if (recordingId) {
      await insertRecording(trx, {
        id: recordingId,
        session_id: id,
        asset_id: assetId,
        owner_type,
        owner_id,
        size_bytes: 0,
        truncated: 0,
        created_at: now,
        ended_at: null,
      });
    }
    await deps.audit.record(trx, ctx, {
      action: 'session.started',
      targetType: 'session',
      targetId: id,
      detail: { asset_id: assetId, kind: 'terminal', recorded: recordingId !== null },
    });
  });
}

export async function openTerminalSession(
  parts: OpenParts,
  ctx: ActionContext,
  assetId: string,
  input: SessionCreate,
): Promise<Session> {
  const { deps, limits, nodeId, live, sweeper, presenter } = parts;
  const { db, clock, logger, audit, events, settings, agentCalls } = deps;
  if (!settings.interactiveEnabled()) throw policyDisabled('policy.interactive_enabled');
  if (ctx.principal.role === 'viewer')
    throw new HubError('read_only_role', 'The viewer role cannot open sessions.');
  if (input.kind === 'desktop')
    throw new HubError(
      'not_implemented',
      'Desktop sessions are opened with POST /api/v2/assets/{id}/desktop/sessions (decision 0030).',
    );
  const owner = ownerOf(ctx.principal);
  if (!owner) throw new HubError('forbidden', 'Sessions need a user or an API key as their owner.');
  // Spent first, whatever follows: a proof opens at most one attempt (decision 0033).
  if (input.device_proof !== undefined)
    deps.deviceOwner.spend(ctx.principal, `session:terminal:${assetId}`, input.device_proof);
  const asset = await agentCalls.loadAsset(ctx.principal, assetId, 'exec.run');
  agentCalls.requireOnline(asset);
  if (live.size >= limits.perHub)
    throw new HubError('unavailable', `this hub already runs ${limits.perHub} sessions`);
  const mine = await listSessions(db, { owner, state: 'live' }, { limit: 1, offset: 0 });
  if (mine.total >= limits.perOwner)
    throw new HubError('conflict', `you already have ${limits.perOwner} live sessions; close one first`);

  const id = newId('remoteSession');
  const cols = input.cols ?? 80;
  const rows = input.rows ?? 24;
  const nowDate = clock.now();
  const now = nowDate.toISOString();
  const recordingId = settings.recordingEnabled() ? newId('recording') : null;
  const row: RemoteSessionRow = {
    id,
    kind: 'terminal',
    asset_id: asset.id,
    ...owner,
    state: 'live',
    cols,
    rows,
    created_at: now,
    last_activity_at: now,
    ended_at: null,
    end_reason: null,
    exit_code: null,
    recording_id: recordingId,
    node_id: nodeId,
  };
  await insertStarted({ db, audit }, ctx, row);
  const recorder = recordingId
    ? startTerminalRecorder(
        { db, logger },
        { id: recordingId, startedAt: nowDate.getTime(), maxBytes: limits.recordingBytes, cols, rows },
      )
    : null;
  const callbacks = live.register({ id, assetId: asset.id, cols, rows, recorder });
  try {
    const handle = await deps.streams.openStream(asset.id, {
      kind: 'pty',
      params: { cols, rows },
      onData: callbacks.onData,
      onClose: callbacks.onClose,
    });
    callbacks.opened(handle);
    sweeper.track(id);
  } catch (error) {
    live.discard(id);
    const ended = clock.now().toISOString();
    await updateSession(db, id, {
      state: 'ended',
      ended_at: ended,
      end_reason: 'the terminal did not open',
    });
    if (recordingId) await updateRecording(db, recordingId, { ended_at: ended });
    throw agentFailure(error, asset, 'exec.run');
  }
  events.publish('session.started', { asset_ids: [asset.id], session_id: id, kind: 'terminal' });
  return presentSession(row, presenter.localValues(id));
}
