import { describe, expect, it } from 'vitest';
import { nextAfterClose, tabBeside, withTab, withoutTab } from './terminal-tabs';

const tabs = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];

describe('terminal tabs', () => {
  it('adds a tab once, at the end, keeping a first input given again', () => {
    expect(withTab(tabs, { id: 'd' }).map((t) => t.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(withTab(tabs, { id: 'b' })).toEqual(tabs);
    expect(withTab(tabs, { id: 'b', initialInput: 'cd\r' })[1]).toEqual({ id: 'b', initialInput: 'cd\r' });
    expect(withoutTab(tabs, 'b').map((t) => t.id)).toEqual(['a', 'c']);
  });

  it('shows the next tab after a close, else the one before', () => {
    expect(nextAfterClose(tabs, 'b')).toBe('c');
    expect(nextAfterClose(tabs, 'c')).toBe('b');
    expect(nextAfterClose([{ id: 'a' }], 'a')).toBeNull();
  });

  it('moves between tabs with wrapping', () => {
    expect(tabBeside(tabs, 'c', 1)).toBe('a');
    expect(tabBeside(tabs, 'a', -1)).toBe('c');
    expect(tabBeside([], 'a', 1)).toBeNull();
  });
});
