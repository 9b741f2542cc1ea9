/**
 * An asset's remote sessions on the phone: a terminal and a desktop, each opened behind the device-owner gate
 * (when `requireBiometricRemoteAccess` is on), which earns a proof for `session:<kind>:<asset>` that the
 * create carries and the hub spends (decision 0033). One session at a time on this screen.
 */
import { useState } from 'react';
import type { DesktopSessionCreated } from '@svc/protocol';
import { hub } from '../../api/client';
import { useT } from '../../i18n/I18nProvider';
import { currentSettings } from './device';
import { DeviceOwnerGate } from './DeviceOwnerGate';
import { HubNameNotice } from './HubNameNotice';
import { MobileDesktop } from './MobileDesktop';
import { MobileTerminal } from './MobileTerminal';

type Open = { kind: 'terminal'; id: string } | { kind: 'desktop'; opened: DesktopSessionCreated };

export function RemoteSessions({ assetId, assetName }: { assetId: string; assetName: string }) {
  const { t } = useT();
  const [open, setOpen] = useState<Open | null>(null);
  const settings = currentSettings();
  const closed = () => {
    setOpen(null);
  };
  return (
    <section aria-labelledby="m-session-title">
      <h2 id="m-session-title">{t('mobile.remoteSession')}</h2>
      {open?.kind === 'terminal' ? (
        <MobileTerminal sessionId={open.id} assetId={assetId} onClosed={closed} />
      ) : open?.kind === 'desktop' ? (
        <MobileDesktop opened={open.opened} assetId={assetId} assetName={assetName} onClosed={closed} />
      ) : (
        <div className="m-actions">
          {settings.requireBiometricRemoteAccess ? <HubNameNotice what="session" /> : null}
          <DeviceOwnerGate
            purpose={`session:terminal:${assetId}`}
            label={t('mobile.openTerminal')}
            required={settings.requireBiometricRemoteAccess}
            onVerified={async (proof) => {
              const { data } = await hub.call('sessions.create', {
                params: { id: assetId },
                body: { kind: 'terminal', ...(proof ? { device_proof: proof } : {}) },
              });
              setOpen({ kind: 'terminal', id: data.id });
            }}
          />
          <DeviceOwnerGate
            purpose={`session:desktop:${assetId}`}
            label={t('mobile.openDesktop')}
            required={settings.requireBiometricRemoteAccess}
            onVerified={async (proof) => {
              const { data } = await hub.call('desktop.createSession', {
                params: { id: assetId },
                body: proof ? { device_proof: proof } : null,
              });
              setOpen({ kind: 'desktop', opened: data });
            }}
          />
        </div>
      )}
    </section>
  );
}
