/**
 * Sessions: the live terminal sessions the caller may use (attach, close) and the recordings (played back
 * with the asciinema player, fetched by id from the hub).
 */
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import * as AsciinemaPlayer from 'asciinema-player';
import 'asciinema-player/dist/bundle/asciinema-player.css';
import { hub } from '../../api/client';
import { formatTime } from '../../components/units';
import { SessionList } from './SessionList';
import './sessions.css';

function Player({ id }: { id: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return undefined;
    const player = AsciinemaPlayer.create(`/api/v2/recordings/${encodeURIComponent(id)}/cast`, element, {
      autoPlay: true,
      preload: true,
      idleTimeLimit: 1,
      fit: 'width',
    });
    return () => {
      player.dispose();
    };
  }, [id]);
  return <div className="recording-player" ref={box} aria-label="Recording player" />;
}

export function SessionsPage() {
  const client = useQueryClient();
  const [playing, setPlaying] = useState<string | null>(null);
  const live = useQuery({
    queryKey: ['sessions', 'live'],
    queryFn: async () => (await hub.call('sessions.list', { query: { state: 'live' } })).data,
    refetchInterval: 10_000,
  });
  const recordings = useQuery({
    queryKey: ['sessions', 'recordings'],
    queryFn: async () => (await hub.call('sessions.recordings', { query: {} })).data,
    refetchInterval: 30_000,
  });
  const close = useMutation({
    mutationFn: async (id: string) => (await hub.call('sessions.close', { params: { id } })).data,
    onSettled: () => client.invalidateQueries({ queryKey: ['sessions'] }),
  });
  return (
    <section className="page" aria-labelledby="sessions-title">
      <div className="page-header">
        <h1 id="sessions-title">Sessions</h1>
      </div>
      <SessionList
        title="Live"
        query={live}
        loadingLabel="Loading sessions"
        empty="No live sessions"
        emptyHint={<>Open a terminal from an asset&apos;s Terminal tab.</>}
        label="Live sessions"
        columns={['Asset', 'Started', 'Browsers', '']}
        row={(s) => (
          <>
            <td>
              <Link to={`/assets/${encodeURIComponent(s.asset_id)}`}>{s.asset_id}</Link>
            </td>
            <td>{formatTime(s.created_at)}</td>
            <td>{s.attached}</td>
            <td>
              <Link to={`/sessions/${encodeURIComponent(s.id)}`}>Attach</Link>{' '}
              <button
                type="button"
                onClick={() => {
                  close.mutate(s.id);
                }}
                disabled={close.isPending}
              >
                Close
              </button>
            </td>
          </>
        )}
      />
      <SessionList
        title="Recordings"
        query={recordings}
        loadingLabel="Loading recordings"
        empty="No recordings"
        label="Recordings"
        columns={['Asset', 'Recorded', 'Size', '']}
        row={(r) => (
          <>
            <td>{r.asset_id}</td>
            <td>
              {formatTime(r.created_at)}
              {r.ended_at ? '' : ' (recording)'}
            </td>
            <td>
              {r.size_bytes} bytes{r.truncated ? ' (truncated)' : ''}
            </td>
            <td>
              <button
                type="button"
                onClick={() => {
                  setPlaying(r.id);
                }}
              >
                Play
              </button>{' '}
              <a href={`/api/v2/recordings/${encodeURIComponent(r.id)}/cast`} download>
                Download
              </a>
            </td>
          </>
        )}
      />
      {playing && <Player key={playing} id={playing} />}
    </section>
  );
}
