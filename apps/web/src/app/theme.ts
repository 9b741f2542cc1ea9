/** Light or dark: the system's choice until the user picks one, then theirs (kept in localStorage). */
export type Theme = 'light' | 'dark';

const storageKey = 'svc.theme';

function storedTheme(): Theme | null {
  try {
    const value = localStorage.getItem(storageKey);
    return value === 'light' || value === 'dark' ? value : null;
  } catch {
    return null;
  }
}

function systemTheme(): Theme {
  return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function currentTheme(): Theme {
  return storedTheme() ?? systemTheme();
}

/** Applies a theme to the document (CSS reads `data-theme` on <html>), and keeps it when asked. */
export function applyTheme(theme: Theme, remember: boolean): void {
  document.documentElement.dataset.theme = theme;
  if (!remember) return;
  try {
    localStorage.setItem(storageKey, theme);
  } catch {
    // private mode: the choice lasts for this page only
  }
}
