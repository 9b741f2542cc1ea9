/**
 * A modal dialog on the native <dialog> element: the browser traps focus, closes on Escape and restores
 * focus to what opened it; labelled by its title.
 */
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { useT } from '../i18n/I18nProvider';

export function Dialog({
  open,
  title,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onClose={onClose}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      {open && (
        <>
          <h2 id={titleId}>{title}</h2>
          {children}
        </>
      )}
    </dialog>
  );
}

/** "Are you sure?" with the consequence spelled out; the confirm button names the action. */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  busy,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const { t } = useT();
  return (
    <Dialog open={open} title={title} onClose={onClose}>
      <div className="dialog-body">{children}</div>
      <div className="dialog-actions">
        <button type="button" onClick={onClose} disabled={busy}>
          {t('common.cancel')}
        </button>
        <button type="button" className="danger" onClick={onConfirm} disabled={busy}>
          {busy ? t('common.working') : confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}
