import { describe, expect, it } from 'vitest';
import {
  changedTargetBody,
  noTargets,
  storedChoice,
  targetBody,
  targetsChosen,
  targetsProblem,
  unnamedIds,
  withAsset,
  withNames,
  withoutAsset,
  type TargetChoice,
} from './target-choice';

const web = { id: 'ast_web', name: 'web-1' };
const db = { id: 'ast_db', name: 'db-1' };

describe('target choice', () => {
  it('sends the picked assets’ ids, or the group, never both', () => {
    const assets = withAsset(withAsset(noTargets, web), db);
    const group: TargetChoice = { ...assets, mode: 'group', groupId: 'grp_lab' };

    expect(targetBody(assets)).toEqual({ targets: ['ast_web', 'ast_db'] });
    expect(targetBody(group)).toEqual({ group: 'grp_lab' });
  });

  it('is chosen only once the current mode has something', () => {
    expect(targetsChosen(noTargets)).toBe(false);
    expect(targetsChosen(withAsset(noTargets, web))).toBe(true);
    expect(targetsChosen({ ...withAsset(noTargets, web), mode: 'group' })).toBe(false);
    expect(targetsChosen({ ...noTargets, mode: 'group', groupId: 'grp_lab' })).toBe(true);
  });

  it('adds an asset once and removes it by id', () => {
    const twice = withAsset(withAsset(noTargets, web), web);

    expect(twice.picked).toEqual([web]);
    expect(withoutAsset(withAsset(twice, db), 'ast_web').picked).toEqual([db]);
  });

  it('reads a stored record: a group, or its targets named by id until the names come', () => {
    const onGroup = storedChoice({ targets: null, group: 'grp_lab' });
    const onAssets = storedChoice({ targets: ['ast_web', 'ast_db'], group: null });

    expect(onGroup).toEqual({ mode: 'group', picked: [], groupId: 'grp_lab' });
    expect(unnamedIds(onAssets)).toEqual(['ast_web', 'ast_db']);
    const named = withNames(onAssets, [web]);
    expect(named.picked).toEqual([web, { id: 'ast_db', name: 'ast_db' }]);
    expect(unnamedIds(named)).toEqual(['ast_db']);
  });

  it('leaves an edit’s targets out of the request until the user changes them', () => {
    const stored = storedChoice({ targets: ['ast_web'], group: null });

    expect(changedTargetBody(stored, false)).toEqual({});
    expect(changedTargetBody(withAsset(stored, db), true)).toEqual({ targets: ['ast_web', 'ast_db'] });
  });

  it('shows the hub’s problem with either field under the picker', () => {
    expect(targetsProblem({ targets: 'an asset is not visible' })).toBe('an asset is not visible');
    expect(targetsProblem({ group: 'no such group' })).toBe('no such group');
    expect(targetsProblem({ name: 'empty' })).toBeUndefined();
  });
});
