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
import { Time } from '../../components/Time';
import { formatBytes } from '../../components/units';
import { useT } from '../../i18n/I18nProvider';
import { SessionList } from './SessionList';
import './sessions.css';

function Player({ id }: { id: string }) {
  const { t } = useT();
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
  return <div className="recording-player" ref={box} aria-label={t('sessions.player')} />;
}

export function SessionsPage() {
  const { t } = useT();
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
        <h1 id="sessions-title">{t('sessions.title')}</h1>
      </div>
      <SessionList
        title={t('sessions.live')}
        query={live}
        loadingLabel={t('sessions.loading')}
        empty={t('sessions.noLive')}
        emptyHint={t('sessions.noLiveHint')}
        label={t('sessions.liveLabel')}
        columns={[
          t('sessions.column', { column: 'asset' }),
          t('sessions.column', { column: 'started' }),
          t('sessions.column', { column: 'browsers' }),
          '',
        ]}
        row={(s) => (
          <>
            <td translate="no">
              <Link to={`/assets/${encodeURIComponent(s.asset_id)}`}>{s.asset_id}</Link>
            </td>
            <td>
              <Time value={s.created_at} />
            </td>
            <td>{s.attached}</td>
            <td>
              <Link to={`/sessions/${encodeURIComponent(s.id)}`}>{t('sessions.attach')}</Link>{' '}
              <button
                type="button"
                onClick={() => {
                  close.mutate(s.id);
                }}
                disabled={close.isPending}
              >
                {t('sessions.close')}
              </button>
            </td>
          </>
        )}
      />
      <SessionList
        title={t('sessions.recordings')}
        query={recordings}
        loadingLabel={t('sessions.loadingRecordings')}
        empty={t('sessions.noRecordings')}
        label={t('sessions.recordings')}
        columns={[
          t('sessions.column', { column: 'asset' }),
          t('sessions.column', { column: 'recorded' }),
          t('sessions.column', { column: 'size' }),
          '',
        ]}
        row={(r) => (
          <>
            <td translate="no">{r.asset_id}</td>
            <td>
              <Time value={r.created_at} />
              {r.ended_at ? '' : ` ${t('sessions.stillRecording')}`}
            </td>
            <td>
              {/* Digits and an international unit symbol (B, KiB): the same in every language. */}
              <span translate="no">{formatBytes(r.size_bytes)}</span>
              {r.truncated ? ` ${t('sessions.truncated')}` : ''}
            </td>
            <td>
              <button
                type="button"
                onClick={() => {
                  setPlaying(r.id);
                }}
              >
                {t('sessions.play')}
              </button>{' '}
              <a href={`/api/v2/recordings/${encodeURIComponent(r.id)}/cast`} download>
                {t('sessions.download')}
              </a>
            </td>
          </>
        )}
      />
      {playing && <Player key={playing} id={playing} />}
    </section>
  );
}
