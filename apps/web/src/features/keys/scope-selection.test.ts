import { scopes } from '@svc/protocol';
import { describe, expect, it } from 'vitest';
import {
  grants,
  hasFamily,
  readOnlyScopes,
  sameScopes,
  scopeSummary,
  scopesByFamily,
  setEverything,
  setFamily,
  setScope,
} from './scope-selection';

describe('the scope picker selection', () => {
  it('groups every scope of the catalog under its family, once', () => {
    const listed = scopesByFamily.flatMap((f) => f.scopes);
    expect([...listed].sort()).toEqual([...scopes].sort());
  });

  it('replaces single scopes by their family, and the family grants them', () => {
    const one = setScope([], 'files:read', true);
    const whole = setFamily(one, 'files', true);
    expect(whole).toEqual(['files:*']);
    expect(grants(whole, 'files:write')).toBe(true);
    expect(grants(whole, 'assets:read')).toBe(false);
    expect(setFamily(whole, 'files', false)).toEqual([]);
  });

  it('reads a bare family as the whole family, as the hub does', () => {
    expect(hasFamily(['files'], 'files')).toBe(true);
    expect(grants(['files'], 'files:read')).toBe(true);
    expect(setFamily(['files', 'assets:read'], 'files', false)).toEqual(['assets:read']);
  });

  it('makes "*" the whole selection, and dropping it keeps nothing else', () => {
    expect(setEverything(['assets:read'], true)).toEqual(['*']);
    expect(grants(['*'], 'bulk:write')).toBe(true);
    expect(setEverything(['*'], false)).toEqual([]);
    expect(scopeSummary(['*'])).toBe('everything (*)');
  });

  it('presets read-only as every :read scope and nothing that writes', () => {
    const read = readOnlyScopes();
    expect(read).toContain('assets:read');
    expect(read.every((s) => s.endsWith(':read'))).toBe(true);
  });

  it('compares selections whatever their order or repeats', () => {
    expect(sameScopes(['b', 'a'], ['a', 'b', 'a'])).toBe(true);
    expect(sameScopes(['a'], ['a', 'b'])).toBe(false);
  });
});
