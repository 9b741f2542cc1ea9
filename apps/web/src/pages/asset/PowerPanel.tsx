/**
 * Reboot and shut down (each after a confirmation naming the asset), and Wake-on-LAN. What the hub answers
 * is shown as it is: 409 for an asset whose agent is offline or that has no MAC address to wake.
 */
import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import type { Asset, WakeResult } from '@svc/protocol';
import { hub } from '../../api/client';
import { ConfirmDialog } from '../../components/Dialog';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT, type I18n } from '../../i18n/I18nProvider';

type PowerAction = 'reboot' | 'shutdown';

function wakeText(t: I18n['t'], result: WakeResult): string {
  return result.sent_via === 'agent'
    ? t('power.wakeByAgent', {
        mac: result.mac,
        relay: result.relay_asset_id ?? t('power.anotherAsset'),
        target: result.target,
      })
    : t('power.wakeByHub', { mac: result.mac, target: result.target });
}

export function PowerPanel({ asset }: { asset: Asset }) {
  const { t } = useT();
  const [asking, setAsking] = useState<PowerAction | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const power = useMutation({
    mutationFn: async (action: PowerAction) =>
      (
        await hub.call(action === 'reboot' ? 'power.reboot' : 'power.shutdown', {
          params: { id: asset.id },
        })
      ).data,
    onSuccess: (result, action) => {
      setAsking(null);
      setOutcome(t(result.accepted ? 'power.accepted' : 'power.refused', { action }));
    },
  });
  const wake = useMutation({
    mutationFn: async () => (await hub.call('power.wake', { params: { id: asset.id } })).data,
    onSuccess: (result) => {
      setOutcome(wakeText(t, result));
    },
  });
  const ask = (action: PowerAction) => {
    setOutcome(null);
    wake.reset();
    setAsking(action);
  };
  return (
    <section className="panel power-panel" aria-labelledby="power-title">
      <h2 id="power-title">{t('power.title')}</h2>
      <div className="row-buttons">
        <button
          type="button"
          onClick={() => {
            setOutcome(null);
            wake.mutate();
          }}
          disabled={wake.isPending}
        >
          {wake.isPending ? t('power.sending') : t('power.wake')}
        </button>
        <button
          type="button"
          className="danger"
          onClick={() => {
            ask('reboot');
          }}
        >
          {t('power.rebootButton')}
        </button>
        <button
          type="button"
          className="danger"
          onClick={() => {
            ask('shutdown');
          }}
        >
          {t('power.shutdownButton')}
        </button>
      </div>
      {outcome && (
        <p className="notice ok" role="status">
          {outcome}
        </p>
      )}
      {wake.isError && <ErrorNotice error={wake.error} />}
      <ConfirmDialog
        open={asking !== null}
        title={t('power.confirmTitle', { action: asking ?? 'reboot', name: asset.name })}
        confirmLabel={t('power.confirm', { action: asking ?? 'reboot' })}
        busy={power.isPending}
        onConfirm={() => {
          if (asking) power.mutate(asking);
        }}
        onClose={() => {
          setAsking(null);
          power.reset();
        }}
      >
        <p>{t('power.consequence', { action: asking ?? 'reboot' })}</p>
        {power.isError && <ErrorNotice error={power.error} />}
      </ConfirmDialog>
    </section>
  );
}
