/**
 * The Edit and Delete buttons of a list row, each named after the row for screen readers ("Edit web-1").
 * Deleting only asks to: the page opens its confirmation dialog.
 */
export function EditDeleteButtons({
  name,
  onEdit,
  onDelete,
  deleteWord = 'Delete',
  small = false,
}: {
  name: string;
  onEdit: () => void;
  onDelete: () => void;
  /** What the delete button says (a connector is removed, not deleted). */
  deleteWord?: 'Delete' | 'Remove';
  small?: boolean;
}) {
  const size = small ? 'small' : undefined;
  return (
    <>
      <button type="button" className={size} aria-label={`Edit ${name}`} onClick={onEdit}>
        Edit
      </button>
      <button
        type="button"
        className={small ? 'small danger' : 'danger'}
        aria-label={`${deleteWord} ${name}`}
        onClick={onDelete}
      >
        {deleteWord}
      </button>
    </>
  );
}
