/**
 * Paths of the files browser: absolute POSIX paths as the hub takes them (it canonicalizes them again and
 * refuses `..`). Pure, so the browser's navigation is tested without one.
 */

/** `/etc` + `hosts` → `/etc/hosts`; `/` + `etc` → `/etc`. */
export function joinPath(dir: string, name: string): string {
  return dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`;
}

/** `/etc/ssh` → `/etc`; `/etc` → `/`; `/` stays `/`. */
export function parentPath(path: string): string {
  const trimmed = normalizeDir(path);
  const cut = trimmed.lastIndexOf('/');
  return cut <= 0 ? '/' : trimmed.slice(0, cut);
}

/** `/etc/ssh/sshd_config` → `sshd_config`. */
export function baseName(path: string): string {
  const trimmed = normalizeDir(path);
  return trimmed.slice(trimmed.lastIndexOf('/') + 1) || '/';
}

/** What a typed path means: absolute, no repeated or trailing slash (`/` stays). */
export function normalizeDir(path: string): string {
  const collapsed = `/${path.trim()}`.replace(/\/+/g, '/');
  return collapsed.length > 1 && collapsed.endsWith('/') ? collapsed.slice(0, -1) : collapsed;
}

/** The breadcrumbs of a directory: `/`, then each ancestor down to the directory itself. */
export function pathCrumbs(path: string): { name: string; path: string }[] {
  const parts = normalizeDir(path).split('/').filter(Boolean);
  const crumbs = [{ name: '/', path: '/' }];
  let current = '';
  for (const part of parts) {
    current = `${current}/${part}`;
    crumbs.push({ name: part, path: current });
  }
  return crumbs;
}
