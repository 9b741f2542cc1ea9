/**
 * The Edit and Delete buttons of a list row, each named after the row for screen readers ("Edit web-1").
 * Deleting only asks to: the page opens its confirmation dialog.
 */
import { useT } from '../i18n/I18nProvider';

export function EditDeleteButtons({
  name,
  onEdit,
  onDelete,
  deleteWord = 'delete',
  small = false,
}: {
  name: string;
  onEdit: () => void;
  onDelete: () => void;
  /** What the delete button says (a connector is removed, not deleted). */
  deleteWord?: 'delete' | 'remove';
  small?: boolean;
}) {
  const { t } = useT();
  const size = small ? 'small' : undefined;
  return (
    <>
      <button type="button" className={size} aria-label={t('common.editNamed', { name })} onClick={onEdit}>
        {t('common.edit')}
      </button>
      <button
        type="button"
        className={small ? 'small danger' : 'danger'}
        aria-label={t(deleteWord === 'remove' ? 'common.removeNamed' : 'common.deleteNamed', { name })}
        onClick={onDelete}
      >
        {t(deleteWord === 'remove' ? 'common.remove' : 'common.delete')}
      </button>
    </>
  );
}
