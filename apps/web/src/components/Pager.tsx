/** Previous and next page of a list the hub pages, with where we are in it. */
import { useT } from '../i18n/I18nProvider';

export function Pager({
  page,
  perPage,
  total,
  onPage,
  busy = false,
}: {
  page: number;
  perPage: number;
  total: number;
  onPage: (page: number) => void;
  busy?: boolean;
}) {
  const { t } = useT();
  const pages = Math.max(1, Math.ceil(total / perPage));
  if (pages <= 1) return <p className="pager muted">{t('pager.items', { total })}</p>;
  return (
    <nav className="pager" aria-label={t('pager.label')}>
      <button
        type="button"
        disabled={busy || page <= 1}
        onClick={() => {
          onPage(page - 1);
        }}
      >
        {t('pager.previous')}
      </button>
      <span aria-live="polite">{t('pager.position', { page, pages, total })}</span>
      <button
        type="button"
        disabled={busy || page >= pages}
        onClick={() => {
          onPage(page + 1);
        }}
      >
        {t('pager.next')}
      </button>
    </nav>
  );
}
