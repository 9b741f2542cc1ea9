/**
 * The scopes a key form holds, as the texts the hub takes: `*`, `family:*` (or a bare `family`, which the hub
 * reads the same), or exact scopes from the protocol's catalog. Pure functions over a sorted list, so the
 * picker, the summary in the list and the "did it change" check agree.
 */
import { scopeFamilies, scopes, type Scope } from '@svc/protocol';

export type ScopeSelection = readonly string[];

export const scopesByFamily: readonly { family: string; scopes: readonly Scope[] }[] = scopeFamilies.map(
  (family) => ({ family, scopes: scopes.filter((s) => s.split(':')[0] === family) }),
);

const normalize = (values: Iterable<string>): ScopeSelection => [...new Set(values)].sort();

export function hasEverything(selection: ScopeSelection): boolean {
  return selection.includes('*');
}

export function hasFamily(selection: ScopeSelection, family: string): boolean {
  return selection.includes(`${family}:*`) || selection.includes(family);
}

/** Whether a scope is granted by the selection, directly or through its family or `*`. */
export function grants(selection: ScopeSelection, scope: Scope): boolean {
  const family = scope.split(':')[0] ?? scope;
  return hasEverything(selection) || hasFamily(selection, family) || selection.includes(scope);
}

export function setEverything(selection: ScopeSelection, on: boolean): ScopeSelection {
  return on ? ['*'] : selection.filter((s) => s !== '*');
}

/** The whole family, replacing its single scopes (they add nothing next to it). */
export function setFamily(selection: ScopeSelection, family: string, on: boolean): ScopeSelection {
  const rest = selection.filter((s) => s !== family && s.split(':')[0] !== family);
  return normalize(on ? [...rest, `${family}:*`] : rest);
}

export function setScope(selection: ScopeSelection, scope: Scope, on: boolean): ScopeSelection {
  const rest = selection.filter((s) => s !== scope);
  return normalize(on ? [...rest, scope] : rest);
}

/** Every `…:read` scope of the catalog: a key that looks at everything and changes nothing. */
export function readOnlyScopes(): ScopeSelection {
  return normalize(scopes.filter((s) => s.endsWith(':read')));
}

export function sameScopes(a: ScopeSelection, b: ScopeSelection): boolean {
  const x = normalize(a);
  const y = normalize(b);
  return x.length === y.length && x.every((s, i) => s === y[i]);
}

/** One line for a list: "everything", or the texts themselves. */
export function scopeSummary(selection: ScopeSelection): string {
  if (hasEverything(selection)) return 'everything (*)';
  return normalize(selection).join(', ');
}
