/**
 * The head of a list page: its title (which labels the page's section), how many there are once read, and
 * the page's one primary action ("New group"), left out when the user may not take it.
 */
import type { ReactNode } from 'react';

export function PageHeader({
  titleId,
  title,
  count,
  action,
  children,
}: {
  titleId: string;
  title: string;
  /** How many there are, undefined until read: the page's own plural message ("3 groups", from `t()`). */
  count?: string | undefined;
  /** The primary action; false or absent shows none. */
  action?: { label: string; onClick: () => void } | false;
  /** Links or controls between the count and the action. */
  children?: ReactNode;
}) {
  return (
    <div className="page-header">
      <h1 id={titleId}>{title}</h1>
      {count !== undefined && <span className="muted">{count}</span>}
      {children}
      {action && (
        <button type="button" className="primary" onClick={action.onClick}>
          {action.label}
        </button>
      )}
    </div>
  );
}
