/** The line an alert notification carries about what depends on its asset (decision 0080). */
export function dependentsLine(count: { total: number; direct: number }): string | null {
  if (count.total === 0) return null;
  const subject = count.total === 1 ? '1 asset depends' : `${String(count.total)} assets depend`;
  return count.direct === count.total
    ? `${subject} on this`
    : `${subject} on this (${String(count.direct)} directly)`;
}
