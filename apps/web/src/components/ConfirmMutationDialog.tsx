/**
 * "Are you sure?" before a change to one record (delete, revoke, remove): confirming runs the mutation on
 * it, the hub's refusal shows inside, and closing forgets that refusal so the next record starts clean.
 */
import type { ReactNode } from 'react';
import { ConfirmDialog } from './Dialog';
import { ErrorNotice } from './ErrorNotice';
import type { ResourceMutation } from './use-resource-mutation';

export function ConfirmMutationDialog<TRecord, TData>({
  record,
  title,
  confirmLabel,
  mutation,
  onClose,
  children,
}: {
  /** The record to change; null keeps the dialog closed. */
  record: TRecord | null;
  title: (record: TRecord) => string;
  confirmLabel: string;
  mutation: ResourceMutation<TData, TRecord>;
  onClose: () => void;
  /** The consequence, spelled out. */
  children: (record: TRecord) => ReactNode;
}) {
  return (
    <ConfirmDialog
      open={record !== null}
      title={record === null ? '' : title(record)}
      confirmLabel={confirmLabel}
      busy={mutation.isPending}
      onConfirm={() => {
        if (record !== null) mutation.mutate(record);
      }}
      onClose={() => {
        onClose();
        mutation.reset();
      }}
    >
      {record !== null && children(record)}
      {mutation.isError && <ErrorNotice error={mutation.error} />}
    </ConfirmDialog>
  );
}
