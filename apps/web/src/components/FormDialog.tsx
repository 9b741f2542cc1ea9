/**
 * A form in a dialog over one resource mutation: the fields, then the hub's refusal, then Cancel and the
 * submit button (both held while the call is under way). Focus starts where the dialog puts it (the field
 * with `autoFocus`) and goes to the first field the hub refused, so a keyboard user lands on what to fix.
 */
import { useEffect, useRef, type ReactNode, type SyntheticEvent } from 'react';
import { Dialog } from './Dialog';
import { ErrorNotice } from './ErrorNotice';
import type { ResourceMutation } from './use-resource-mutation';
import { useT } from '../i18n/I18nProvider';

export function FormDialog<TData, TVariables>({
  open = true,
  title,
  mutation,
  onSubmit,
  onClose,
  submitLabel,
  pendingLabel,
  canSubmit = true,
  className = 'asset-form',
  children,
}: {
  open?: boolean;
  title: string;
  mutation: ResourceMutation<TData, TVariables>;
  /** Called on submit (the event already stopped): start the mutation here. */
  onSubmit: () => void;
  onClose: () => void;
  submitLabel: string;
  pendingLabel?: string;
  /** False holds the submit button (a required choice not made yet). */
  canSubmit?: boolean;
  className?: string;
  children: ReactNode;
}) {
  const { t } = useT();
  const form = useRef<HTMLFormElement>(null);
  const { error, isError, isPending } = mutation;
  useEffect(() => {
    form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [error]);
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    if (canSubmit && !isPending) onSubmit();
  };
  return (
    <Dialog open={open} title={title} onClose={onClose}>
      <form ref={form} className={className} onSubmit={submit} noValidate>
        {children}
        {isError && <ErrorNotice error={error} />}
        <div className="dialog-actions">
          <button type="button" onClick={onClose} disabled={isPending}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="primary" disabled={isPending || !canSubmit}>
            {isPending ? (pendingLabel ?? t('common.saving')) : submitLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
