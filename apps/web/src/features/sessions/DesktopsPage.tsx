/**
 * Desktops: the open desktop sessions and the desktop recordings the caller may see (their own; all for an
 * admin), each recording played back in noVNC from its id (decision 0030).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { errorText, hub } from '../../api/client';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { formatTime } from '../../components/units';
import { DesktopReplay } from './DesktopReplay';
import { SessionList } from './SessionList';

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

export function DesktopsPage() {
  const client = useQueryClient();
  const sessions = useQuery({
    queryKey: ['desktop', 'sessions'],
    queryFn: async () => (await hub.call('desktop.sessions', {})).data,
    refetchInterval: 15_000,
  });
  const recordings = useQuery({
    queryKey: ['desktop', 'recordings'],
    queryFn: async () => (await hub.call('desktop.recordings', {})).data,
  });
  const close = useMutation({
    mutationFn: async (id: string) => hub.call('desktop.closeSession', { params: { session_id: id } }),
    onSettled: () => client.invalidateQueries({ queryKey: ['desktop', 'sessions'] }),
  });
  return (
    <section className="page" aria-labelledby="desktops-title">
      <div className="page-header">
        <h1 id="desktops-title">Desktops</h1>
      </div>
      <SessionList
        title="Open sessions"
        query={sessions}
        loadingLabel="Loading desktop sessions"
        empty="No open desktop session"
        emptyHint={<>Open one from an asset&apos;s Desktop tab.</>}
        label="Open desktop sessions"
        columns={['Asset', 'Opened', 'Console', '']}
        row={(s) => (
          <>
            <td>
              <Link to={`/assets/${s.asset_id}/desktop`}>{s.asset_id}</Link>
            </td>
            <td>{formatTime(s.created_at)}</td>
            <td>{s.attached ? 'attached' : 'none'}</td>
            <td>
              <button
                type="button"
                onClick={() => {
                  close.mutate(s.id);
                }}
              >
                Close
              </button>
            </td>
          </>
        )}
      />
      {close.isError && <p className="state-bad">{errorText(close.error)}</p>}
      <SessionList
        title="Recordings"
        query={recordings}
        loadingLabel="Loading recordings"
        empty="No desktop recording"
        emptyHint="Each desktop attach is recorded; recordings show here once it ends."
        label="Desktop recordings"
        columns={['Started', 'Asset', 'Size', '']}
        row={(r) => (
          <>
            <td>{formatTime(r.started_at)}</td>
            <td>{r.asset_id}</td>
            <td>{r.ended_at ? formatBytes(r.bytes) : 'recording…'}</td>
            <td>{r.ended_at && <Link to={`/desktop/recordings/${r.id}`}>Play</Link>}</td>
          </>
        )}
      />
    </section>
  );
}

export function DesktopRecordingPage() {
  const { id = '' } = useParams();
  const recording = useQuery({
    queryKey: ['desktop', 'recording', id],
    queryFn: async () => (await hub.download('desktop.recording', { params: { recording_id: id } })).bytes,
    staleTime: Number.POSITIVE_INFINITY,
  });
  return (
    <section className="page" aria-labelledby="recording-title">
      <div className="page-header">
        <h1 id="recording-title">Desktop recording</h1>
        <Link to="/desktop">All desktops</Link>
      </div>
      {recording.isPending && <Loading label="Loading the recording" />}
      {recording.isError && <ErrorNotice error={recording.error} retry={() => void recording.refetch()} />}
      {recording.isSuccess && <DesktopReplay bytes={recording.data} label="Recorded desktop" />}
    </section>
  );
}
