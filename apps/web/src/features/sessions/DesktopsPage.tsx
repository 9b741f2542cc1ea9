/**
 * Desktops: the open desktop sessions and the desktop recordings the caller may see (their own; all for an
 * admin), each recording played back in noVNC from its id (decision 0030).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { errorText, hub } from '../../api/client';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { Time } from '../../components/Time';
import { formatBytes } from '../../components/units';
import { useT } from '../../i18n/I18nProvider';
import { DesktopReplay } from './DesktopReplay';
import { SessionList } from './SessionList';

export function DesktopsPage() {
  const { t } = useT();
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
        <h1 id="desktops-title">{t('sessions.desktops')}</h1>
      </div>
      <SessionList
        title={t('sessions.openDesktops')}
        query={sessions}
        loadingLabel={t('sessions.loadingDesktops')}
        empty={t('sessions.noDesktop')}
        emptyHint={t('sessions.noDesktopHint')}
        label={t('sessions.openDesktopsLabel')}
        columns={[
          t('sessions.column', { column: 'asset' }),
          t('sessions.column', { column: 'opened' }),
          t('sessions.column', { column: 'console' }),
          '',
        ]}
        row={(s) => (
          <>
            <td translate="no">
              <Link to={`/assets/${s.asset_id}/desktop`}>{s.asset_id}</Link>
            </td>
            <td>
              <Time value={s.created_at} />
            </td>
            <td>{t('sessions.attached', { attached: s.attached ? 'yes' : 'no' })}</td>
            <td>
              <button
                type="button"
                onClick={() => {
                  close.mutate(s.id);
                }}
              >
                {t('sessions.close')}
              </button>
            </td>
          </>
        )}
      />
      {close.isError && (
        <p className="state-bad" translate="no">
          {errorText(close.error)}
        </p>
      )}
      <SessionList
        title={t('sessions.recordings')}
        query={recordings}
        loadingLabel={t('sessions.loadingRecordings')}
        empty={t('sessions.noDesktopRecording')}
        emptyHint={t('sessions.desktopRecordingHint')}
        label={t('sessions.desktopRecordings')}
        columns={[
          t('sessions.column', { column: 'started' }),
          t('sessions.column', { column: 'asset' }),
          t('sessions.column', { column: 'size' }),
          '',
        ]}
        row={(r) => (
          <>
            <td>
              <Time value={r.started_at} />
            </td>
            <td translate="no">{r.asset_id}</td>
            <td>
              {/* Digits and an international unit symbol (B, KiB): the same in every language. */}
              {r.ended_at ? <span translate="no">{formatBytes(r.bytes)}</span> : t('sessions.recordingNow')}
            </td>
            <td>{r.ended_at && <Link to={`/desktop/recordings/${r.id}`}>{t('sessions.play')}</Link>}</td>
          </>
        )}
      />
    </section>
  );
}

export function DesktopRecordingPage() {
  const { t } = useT();
  const { id = '' } = useParams();
  const recording = useQuery({
    queryKey: ['desktop', 'recording', id],
    queryFn: async () => (await hub.download('desktop.recording', { params: { recording_id: id } })).bytes,
    staleTime: Number.POSITIVE_INFINITY,
  });
  return (
    <section className="page" aria-labelledby="recording-title">
      <div className="page-header">
        <h1 id="recording-title">{t('sessions.desktopRecording')}</h1>
        <Link to="/desktop">{t('sessions.allDesktops')}</Link>
      </div>
      {recording.isPending && <Loading label={t('sessions.loadingRecording')} />}
      {recording.isError && <ErrorNotice error={recording.error} retry={() => void recording.refetch()} />}
      {recording.isSuccess && <DesktopReplay bytes={recording.data} label={t('sessions.recordedDesktop')} />}
    </section>
  );
}
