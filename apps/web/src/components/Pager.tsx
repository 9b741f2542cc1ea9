/** Previous and next page of a list the hub pages, with where we are in it. */
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
  const pages = Math.max(1, Math.ceil(total / perPage));
  if (pages <= 1) return <p className="pager muted">{total === 1 ? '1 item' : `${total} items`}</p>;
  return (
    <nav className="pager" aria-label="Pages">
      <button
        type="button"
        disabled={busy || page <= 1}
        onClick={() => {
          onPage(page - 1);
        }}
      >
        Previous
      </button>
      <span aria-live="polite">
        Page {page} of {pages} ({total} items)
      </span>
      <button
        type="button"
        disabled={busy || page >= pages}
        onClick={() => {
          onPage(page + 1);
        }}
      >
        Next
      </button>
    </nav>
  );
}
