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
import type { AssetTabProps } from '../../pages/asset/asset-tabs';
import { DesktopScreen, type DesktopStatus } from './DesktopScreen';

function streamUrl(path: string): string {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${window.location.host}${path}`;
}

function DesktopPassword({ assetId }: { assetId: string }) {
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
    <form className="inline-form" onSubmit={submit} aria-label="Desktop password">
      <span className="muted">
        {status.data?.password_set
          ? 'The hub holds a VNC password for this desktop.'
          : 'No VNC password held.'}
      </span>
      <label>
        VNC password{' '}
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
        Set password
      </button>
      {status.data?.password_set && (
        <button
          type="button"
          disabled={save.isPending}
          onClick={() => {
            save.mutate(null);
          }}
        >
          Clear
        </button>
      )}
      {save.isError && <span className="state-bad">{errorText(save.error)}</span>}
    </form>
  );
}

export function DesktopTab({ asset }: AssetTabProps) {
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
    <section className="desktop-tab" aria-label="Desktop">
      <div className="toolbar">
        {opened ? (
          <button
            type="button"
            onClick={() => {
              close.mutate(opened.session.id);
            }}
          >
            Close desktop
          </button>
        ) : (
          <button
            type="button"
            disabled={open.isPending}
            onClick={() => {
              open.mutate();
            }}
          >
            Open desktop
          </button>
        )}
        <Link to="/desktop">Desktop sessions and recordings</Link>
      </div>
      {open.isError && <p className="state-bad">{errorText(open.error)}</p>}
      {opened && (
        <>
          {opened.credentials === null && status?.state === 'failed' && (
            <p className="muted">An admin can set this desktop&apos;s VNC password below.</p>
          )}
          <DesktopScreen
            source={{ url: streamUrl(opened.session.stream_path) }}
            password={opened.credentials?.password ?? null}
            label={`Desktop of ${asset.name}`}
            onStatus={setStatus}
            // Re-attach after a transient drop, as the terminal page does.
            autoReconnect
          />
        </>
      )}
      {!opened && (
        <p className="muted">
          The desktop is the machine&apos;s own VNC server (agent setting <code>vnc_port</code>, on its
          loopback), reached through the agent: no port is opened on the machine.
        </p>
      )}
      {isAdmin && <DesktopPassword assetId={asset.id} />}
    </section>
  );
}
