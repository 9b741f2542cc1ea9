/**
 * Start, stop or restart one thing on an asset (a container, a systemd service), as the asset tabs offer it:
 * the row's buttons, a confirmation that names the thing and the asset and says what follows, and the hub's
 * answer (the state after the action) said once it is done.
 */
import { useState } from 'react';
import type { QueryKey } from '@tanstack/react-query';
import { ConfirmMutationDialog } from '../../../components/ConfirmMutationDialog';
import { useResourceMutation } from '../../../components/use-resource-mutation';
import { useT } from '../../../i18n/I18nProvider';

export type LifecycleAction = 'start' | 'stop' | 'restart';

export interface LifecycleRequest<T> {
  target: T;
  action: LifecycleAction;
}

/** The request being confirmed and what the last one did; asking again forgets that answer. */
export function useLifecycleRequests<T>() {
  const [pending, setPending] = useState<LifecycleRequest<T> | null>(null);
  const [done, setDone] = useState<string | null>(null);
  return {
    pending,
    done,
    ask: (target: T, action: LifecycleAction) => {
      setDone(null);
      setPending({ target, action });
    },
    finish: (message?: string) => {
      setPending(null);
      if (message) setDone(message);
    },
  };
}

export function DoneNotice({ done }: { done: string | null }) {
  return (
    done && (
      <p className="notice ok" role="status">
        {done}
      </p>
    )
  );
}

/** One button per action, named "Stop grafana"; starting is the only one not marked dangerous. */
export function LifecycleButtons({
  name,
  actions,
  onAsk,
}: {
  name: string;
  actions: readonly LifecycleAction[];
  onAsk: (action: LifecycleAction) => void;
}) {
  const { t } = useT();
  return actions.map((action) => (
    <button
      key={action}
      type="button"
      className={action === 'start' ? 'small' : 'small danger'}
      aria-label={t('assetTabs.actionNamed', { action, name })}
      onClick={() => {
        onAsk(action);
      }}
    >
      {t('assetTabs.action', { action })}
    </button>
  ));
}

export function LifecycleDialog<T, TData>({
  assetName,
  kind,
  nameOf,
  pending,
  call,
  invalidates,
  doneText,
  consequence,
  onClose,
}: {
  assetName: string;
  /** "container": the confirm button says "Stop container". */
  kind: 'container' | 'service';
  nameOf: (target: T) => string;
  pending: LifecycleRequest<T> | null;
  call: (request: LifecycleRequest<T>) => Promise<TData>;
  invalidates: readonly QueryKey[];
  doneText: (result: TData, request: LifecycleRequest<T>) => string;
  consequence: Record<LifecycleAction, string>;
  /** With the hub's answer once done; without when the user cancels. */
  onClose: (done?: string) => void;
}) {
  const { t } = useT();
  const run = useResourceMutation<TData, LifecycleRequest<T>>({
    mutationFn: call,
    invalidates,
    onSuccess: (result, request) => {
      onClose(doneText(result, request));
    },
  });
  const action = pending?.action ?? 'restart';
  return (
    <ConfirmMutationDialog
      record={pending}
      title={(request) =>
        t('assetTabs.actionTitle', { action: request.action, name: nameOf(request.target), asset: assetName })
      }
      confirmLabel={t('assetTabs.actionConfirm', { kind, action })}
      mutation={run}
      onClose={onClose}
    >
      {(request) => <p>{consequence[request.action]}</p>}
    </ConfirmMutationDialog>
  );
}
