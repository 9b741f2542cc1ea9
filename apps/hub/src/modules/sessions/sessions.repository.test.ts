/**
 * Which live sessions a start and a node's departure end (decision 0043): alone, every one from before the
 * start; in a cluster, only those of nodes that are not live, never a live peer's; a gone node's, and only its.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type HubDatabase } from '../../platform/db/database.js';
import {
  endLiveSessions,
  endSessionsOfNode,
  findRecording,
  findSession,
  insertRecording,
  insertSession,
} from './sessions.repository.js';

const before = '2026-01-01T00:00:00.000Z';
const start = '2026-01-01T00:01:00.000Z';

describe('ending the sessions of processes that are gone', () => {
  let database: HubDatabase;

  async function session(id: string, node: string | null): Promise<void> {
    await insertSession(database.db, {
      id,
      kind: 'terminal',
      asset_id: 'ast_1',
      owner_type: 'api_key',
      owner_id: 'key_1',
      state: 'live',
      cols: 80,
      rows: 24,
      created_at: before,
      last_activity_at: before,
      ended_at: null,
      end_reason: null,
      exit_code: null,
      recording_id: `rec_${id}`,
      node_id: node,
    });
    await insertRecording(database.db, {
      id: `rec_${id}`,
      session_id: id,
      asset_id: 'ast_1',
      owner_type: 'api_key',
      owner_id: 'key_1',
      size_bytes: 0,
      truncated: 0,
      created_at: before,
      ended_at: null,
    });
  }

  const stateOf = async (id: string) => (await findSession(database.db, id))?.state;
  const recordingEnded = async (id: string) => (await findRecording(database.db, `rec_${id}`))?.ended_at;

  beforeEach(async () => {
    database = await openDatabase({ databaseUrl: null, dataDir: '', sqliteFile: ':memory:' });
    await session('peer', 'node_peer');
    await session('dead', 'node_dead');
    await session('old', null);
  });
  afterEach(async () => {
    await database.close();
  });

  it('in a cluster, ends the sessions of nodes that are not live, and their recordings', async () => {
    expect(await endLiveSessions(database.db, start, 'the hub restarted', ['node_peer', 'node_me'])).toBe(1);
    expect(await stateOf('peer')).toBe('live');
    expect(await stateOf('dead')).toBe('ended');
    expect(await stateOf('old')).toBe('live');
    expect(await recordingEnded('peer')).toBeNull();
    expect(await recordingEnded('dead')).toBe(start);
  });

  it('alone, ends every session from before the start', async () => {
    expect(await endLiveSessions(database.db, start, 'the hub restarted', null)).toBe(3);
    expect(await recordingEnded('old')).toBe(start);
  });

  it('ends a gone node’s sessions only', async () => {
    expect(await endSessionsOfNode(database.db, 'node_dead', start, 'its hub process went away')).toBe(1);
    expect(await stateOf('dead')).toBe('ended');
    expect(await stateOf('peer')).toBe('live');
    expect((await findSession(database.db, 'dead'))?.end_reason).toBe('its hub process went away');
  });
});
