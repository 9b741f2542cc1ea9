/**
 * Restart the hub (`POST /api/settings/restart`) after a confirmation, then wait until it answers again with
 * a new start time, bounded: settings read at start are applied then. Sessions survive a restart.
 */
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { RestartResult, Setting } from '@svc/protocol';
import { hub } from '../../api/client';
import { ConfirmDialog } from '../../components/Dialog';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n/I18nProvider';

const waitStepMs = 1_000;
const waitSteps = 90;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls the hub's status until its start time differs from `before`; throws `giveUp` after `waitSteps` tries. */
async function waitForRestart(before: string, giveUp: string): Promise<void> {
  for (let step = 0; step < waitSteps; step += 1) {
    await sleep(waitStepMs);
    try {
      const { started_at } = (await hub.call('hub.status')).data;
      if (started_at !== before) return;
    } catch {
      // Not answering yet (closed, starting): keep waiting.
    }
  }
  throw new Error(giveUp);
}

type Phase = 'idle' | 'restarting' | 'back';

export function RestartPanel({ pending }: { pending: readonly Setting[] }) {
  const { t } = useT();
  const client = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [phase, setPhase] = useState<Phase>('idle');
  const restart = useMutation({
    mutationFn: async (): Promise<RestartResult> => {
      const before = (await hub.call('hub.status')).data.started_at;
      const result = (await hub.call('settings.restart')).data;
      if (!result.restarting) return result;
      setConfirming(false);
      setPhase('restarting');
      await waitForRestart(before, t('settings.noAnswer', { seconds: (waitSteps * waitStepMs) / 1000 }));
      return result;
    },
    onSuccess: async (result) => {
      setConfirming(false);
      setPhase(result.restarting ? 'back' : 'idle');
      await client.invalidateQueries();
    },
    onError: () => {
      setPhase('idle');
    },
  });
  return (
    <section
      className={pending.length > 0 ? 'panel restart-panel attention' : 'panel restart-panel'}
      aria-labelledby="restart-title"
    >
      <h2 id="restart-title">{t('settings.restart')}</h2>
      {pending.length > 0 ? (
        <p>{t('settings.pending', { n: pending.length, keys: pending.map((s) => s.key).join(', ') })}</p>
      ) : (
        <p className="muted">{t('settings.noPending')}</p>
      )}
      {phase === 'restarting' && (
        <p className="notice" role="status">
          <span className="spinner" aria-hidden="true" /> {t('settings.restarting')}
        </p>
      )}
      {phase === 'back' && (
        <p className="notice ok" role="status">
          {t('settings.back')}
        </p>
      )}
      {restart.isSuccess && !restart.data.restarting && (
        <p className="notice" role="status" translate="no">
          {restart.data.message}
        </p>
      )}
      {restart.isError && !confirming && <ErrorNotice error={restart.error} />}
      <button
        type="button"
        className={pending.length > 0 ? 'primary' : undefined}
        disabled={phase === 'restarting'}
        onClick={() => {
          restart.reset();
          setPhase('idle');
          setConfirming(true);
        }}
      >
        {t('settings.restartHub')}
      </button>
      <ConfirmDialog
        open={confirming}
        title={t('settings.restartTitle')}
        confirmLabel={t('settings.restartNow')}
        busy={restart.isPending}
        onConfirm={() => {
          restart.mutate();
        }}
        onClose={() => {
          setConfirming(false);
        }}
      >
        <p>{t('settings.restartText')}</p>
        {restart.isError && <ErrorNotice error={restart.error} />}
      </ConfirmDialog>
    </section>
  );
}
