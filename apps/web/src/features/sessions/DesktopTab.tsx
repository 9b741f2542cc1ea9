/**
 * The asset page's Desktop tab: open a desktop session on the machine's own VNC server (through its agent)
 * and show it with noVNC; the password the hub holds comes once, in the create's answer, and stays in this
 * component's memory only. Admins set or clear that password here (write-only).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DesktopSessionCreated } from '@svc/protocol';
import { useState, type SyntheticEvent } from 'react';
import { Link } from 'react-router';
import { errorText, hub } from '../../api/client';
import { useSession } from '../../app/session';
import { useT } from '../../i18n/I18nProvider';
import type { AssetTabProps } from '../../pages/asset/asset-tabs';
import { DesktopScreen, type DesktopStatus } from './DesktopScreen';

function streamUrl(path: string): string {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${window.location.host}${path}`;
}

function DesktopPassword({ assetId }: { assetId: string }) {
  const { t } = useT();
  const client = useQueryClient();
  const key = ['desktop', 'credentials', assetId];
  const status = useQuery({
    queryKey: key,
    queryFn: async () => (await hub.call('desktop.credentials', { params: { id: assetId } })).data,
  });
  const [password, setPassword] = useState('');
  const save = useMutation({
    mutationFn: async (value: string | null) =>
      value === null
        ? (await hub.call('desktop.clearCredentials', { params: { id: assetId } })).data
        : (await hub.call('desktop.setCredentials', { params: { id: assetId }, body: { password: value } }))
            .data,
    onSuccess: (data) => {
      client.setQueryData(key, data);
      setPassword('');
    },
  });
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    if (password) save.mutate(password);
  };
  return (
    <form className="inline-form" onSubmit={submit} aria-label={t('sessions.desktopPassword')}>
      <span className="muted">
        {t('sessions.passwordHeld', { held: status.data?.password_set ? 'yes' : 'no' })}
      </span>
      <label>
        {t('sessions.vncPassword')}{' '}
        <input
          type="password"
          autoComplete="new-password"
          value={password}
          maxLength={256}
          onChange={(event) => {
            setPassword(event.target.value);
          }}
        />
      </label>
      <button type="submit" disabled={!password || save.isPending}>
        {t('sessions.setPassword')}
      </button>
      {status.data?.password_set && (
        <button
          type="button"
          disabled={save.isPending}
          onClick={() => {
            save.mutate(null);
          }}
        >
          {t('sessions.clear')}
        </button>
      )}
      {save.isError && (
        <span className="state-bad" translate="no">
          {errorText(save.error)}
        </span>
      )}
    </form>
  );
}

export function DesktopTab({ asset }: AssetTabProps) {
  const { t, rich } = useT();
  const { isAdmin } = useSession();
  const [opened, setOpened] = useState<DesktopSessionCreated | null>(null);
  const [status, setStatus] = useState<DesktopStatus | null>(null);
  const open = useMutation({
    mutationFn: async () => (await hub.call('desktop.createSession', { params: { id: asset.id } })).data,
    onSuccess: (data) => {
      setOpened(data);
    },
  });
  const close = useMutation({
    mutationFn: async (id: string) => hub.call('desktop.closeSession', { params: { session_id: id } }),
    onSettled: () => {
      setOpened(null);
      setStatus(null);
    },
  });

  return (
    <section className="desktop-tab" aria-label={t('assetTab.desktop')}>
      <div className="toolbar">
        {opened ? (
          <button
            type="button"
            onClick={() => {
              close.mutate(opened.session.id);
            }}
          >
            {t('sessions.closeDesktop')}
          </button>
        ) : (
          <button
            type="button"
            disabled={open.isPending}
            onClick={() => {
              open.mutate();
            }}
          >
            {t('sessions.openDesktop')}
          </button>
        )}
        <Link to="/desktop">{t('sessions.desktopLink')}</Link>
      </div>
      {open.isError && (
        <p className="state-bad" translate="no">
          {errorText(open.error)}
        </p>
      )}
      {opened && (
        <>
          {opened.credentials === null && status?.state === 'failed' && (
            <p className="muted">{t('sessions.adminCanSet')}</p>
          )}
          <DesktopScreen
            source={{ url: streamUrl(opened.session.stream_path) }}
            password={opened.credentials?.password ?? null}
            label={t('sessions.desktopOf', { name: asset.name })}
            onStatus={setStatus}
            // Re-attach after a transient drop, as the terminal page does.
            autoReconnect
          />
        </>
      )}
      {!opened && <p className="muted">{rich('sessions.desktopHow', { setting: <code>vnc_port</code> })}</p>}
      {isAdmin && <DesktopPassword assetId={asset.id} />}
    </section>
  );
}
