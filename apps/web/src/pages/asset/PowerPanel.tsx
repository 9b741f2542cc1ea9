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

type PowerAction = 'reboot' | 'shutdown';

const powerText: Record<PowerAction, { title: string; confirm: string; consequence: string }> = {
  reboot: {
    title: 'Reboot',
    confirm: 'Reboot now',
    consequence:
      'The machine restarts now: everything running on it stops, and its agent is offline until it is back.',
  },
  shutdown: {
    title: 'Shut down',
    confirm: 'Shut down now',
    consequence:
      'The machine powers off now. Only Wake-on-LAN (with its MAC address set) or a person at the machine starts it again.',
  },
};

function wakeText(result: WakeResult): string {
  return result.sent_via === 'agent'
    ? `Magic packet for ${result.mac} sent by the agent of ${result.relay_asset_id ?? 'another asset'} to ${result.target}.`
    : `Magic packet for ${result.mac} sent by the hub to ${result.target}.`;
}

export function PowerPanel({ asset }: { asset: Asset }) {
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
      setOutcome(
        result.accepted
          ? `${powerText[action].title}: the agent accepted it.`
          : `${powerText[action].title}: the agent refused it (power actions are off on this agent).`,
      );
    },
  });
  const wake = useMutation({
    mutationFn: async () => (await hub.call('power.wake', { params: { id: asset.id } })).data,
    onSuccess: (result) => {
      setOutcome(wakeText(result));
    },
  });
  const ask = (action: PowerAction) => {
    setOutcome(null);
    wake.reset();
    setAsking(action);
  };
  return (
    <section className="panel power-panel" aria-labelledby="power-title">
      <h2 id="power-title">Power</h2>
      <div className="row-buttons">
        <button
          type="button"
          onClick={() => {
            setOutcome(null);
            wake.mutate();
          }}
          disabled={wake.isPending}
        >
          {wake.isPending ? 'Sending…' : 'Wake (Wake-on-LAN)'}
        </button>
        <button
          type="button"
          className="danger"
          onClick={() => {
            ask('reboot');
          }}
        >
          Reboot…
        </button>
        <button
          type="button"
          className="danger"
          onClick={() => {
            ask('shutdown');
          }}
        >
          Shut down…
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
        title={`${powerText[asking ?? 'reboot'].title} ${asset.name}?`}
        confirmLabel={powerText[asking ?? 'reboot'].confirm}
        busy={power.isPending}
        onConfirm={() => {
          if (asking) power.mutate(asking);
        }}
        onClose={() => {
          setAsking(null);
          power.reset();
        }}
      >
        <p>{powerText[asking ?? 'reboot'].consequence}</p>
        {power.isError && <ErrorNotice error={power.error} />}
      </ConfirmDialog>
    </section>
  );
}
