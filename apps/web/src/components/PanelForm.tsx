/**
 * A form in a panel of its page (saved actions, schedules) over one resource mutation: a titled form, its
 * fields, the submit button (and Cancel while editing), and the hub's refusal when no field could show it.
 */
import { useId, type ReactNode, type SyntheticEvent } from 'react';
import { useT } from '../i18n/I18nProvider';
import { ErrorNotice } from './ErrorNotice';
import { hasUnplacedProblem } from './form-problems';
import type { ResourceMutation } from './use-resource-mutation';

export function PanelForm<TData, TVariables>({
  title,
  mutation,
  onSubmit,
  onCancel,
  submitLabel,
  canSubmit,
  beside,
  children,
}: {
  title: string;
  mutation: ResourceMutation<TData, TVariables>;
  /** Called on submit when it can be (the event already stopped): start the mutation here. */
  onSubmit: () => void;
  /** Shown as a Cancel button when given (an edit can be left; a new record's form stays open). */
  onCancel?: (() => void) | undefined;
  submitLabel: string;
  canSubmit: boolean;
  /** Fields laid out on the buttons' row. */
  beside?: ReactNode;
  children: ReactNode;
}) {
  const { t } = useT();
  const titleId = useId();
  const ready = canSubmit && !mutation.isPending;
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    if (ready) onSubmit();
  };
  const buttons = (
    <div className="run-buttons">
      <button type="submit" className="primary" disabled={!ready}>
        {mutation.isPending ? t('common.saving') : submitLabel}
      </button>
      {onCancel && (
        <button type="button" onClick={onCancel} disabled={mutation.isPending}>
          {t('common.cancel')}
        </button>
      )}
    </div>
  );
  return (
    <form className="panel run-form" onSubmit={submit} noValidate aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      {children}
      {beside === undefined ? (
        buttons
      ) : (
        <div className="run-options">
          {beside}
          {buttons}
        </div>
      )}
      {hasUnplacedProblem(mutation.error) && <ErrorNotice error={mutation.error} />}
    </form>
  );
}
