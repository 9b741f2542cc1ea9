/**
 * The terminal page's tabs (decision 0091): the sessions this browser tab holds open, in order, kept in
 * sessionStorage so a reload keeps them (each re-attaches; the hub replays its screen). A tab opened from a
 * bookmark carries its first input until it has been typed.
 */
export interface TerminalTab {
  id: string;
  initialInput?: string;
}

const storageKey = 'svc.terminal.tabs';
/** As many as the hub lets one owner hold live (sessionLimits.perOwner). */
const maxTabs = 16;

function isTab(value: unknown): value is TerminalTab {
  if (typeof value !== 'object' || value === null) return false;
  const { id, initialInput } = value as Record<string, unknown>;
  return typeof id === 'string' && (initialInput === undefined || typeof initialInput === 'string');
}

export function loadTabs(): TerminalTab[] {
  try {
    const parsed: unknown = JSON.parse(sessionStorage.getItem(storageKey) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter(isTab).slice(0, maxTabs) : [];
  } catch {
    return [];
  }
}

export function saveTabs(tabs: readonly TerminalTab[]): void {
  sessionStorage.setItem(storageKey, JSON.stringify(tabs));
}

/** The tabs with `tab` in them (at the end when new; its first input kept when it has one). */
export function withTab(tabs: readonly TerminalTab[], tab: TerminalTab): TerminalTab[] {
  if (tabs.some((t) => t.id === tab.id))
    return tabs.map((t) => (t.id === tab.id && tab.initialInput !== undefined ? tab : t));
  return [...tabs, tab].slice(-maxTabs);
}

export function withoutTab(tabs: readonly TerminalTab[], id: string): TerminalTab[] {
  return tabs.filter((t) => t.id !== id);
}

/** The tab to show after `id` closes: the one after it, else the one before, else none. */
export function nextAfterClose(tabs: readonly TerminalTab[], id: string): string | null {
  const index = tabs.findIndex((t) => t.id === id);
  const rest = withoutTab(tabs, id);
  if (rest.length === 0) return null;
  return (rest[Math.min(Math.max(index, 0), rest.length - 1)] ?? rest[0])?.id ?? null;
}

/** The tab `offset` places away from `id`, wrapping (arrow keys on the tab list). */
export function tabBeside(tabs: readonly TerminalTab[], id: string, offset: number): string | null {
  if (tabs.length === 0) return null;
  const index = Math.max(
    0,
    tabs.findIndex((t) => t.id === id),
  );
  return tabs[(index + offset + tabs.length) % tabs.length]?.id ?? null;
}
