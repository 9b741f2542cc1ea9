import { describe, expect, it } from 'vitest';
import { clampWidth, columnLayout, defaultListView, parseListView } from './list-view';

describe('list view', () => {
  it('reads back what it stored, and drops what it does not know', () => {
    expect(parseListView(null)).toEqual(defaultListView);
    expect(parseListView('not json')).toEqual(defaultListView);
    expect(
      parseListView(
        JSON.stringify({
          density: 'compact',
          hidden: ['tags', 'name', 'colour', 'tags'],
          widths: { status: 5, platform: 150, nonsense: 3, tags: 'wide' },
        }),
      ),
    ).toEqual({ density: 'compact', hidden: ['tags'], widths: { status: 80, platform: 150 } });
    expect(parseListView(JSON.stringify({ density: 'tiny' })).density).toBe('comfortable');
  });

  it('never lets a column go below its least width', () => {
    expect(clampWidth('name', 0)).toBe(120);
    expect(clampWidth('addresses', 10_000)).toBe(600);
  });

  it('lays out only the shown columns, the name taking what is left', () => {
    const layout = columnLayout(
      { density: 'compact', hidden: ['platform', 'addresses'], widths: { name: 300, status: 90 } },
      { anyTags: false, canMutate: true },
    );
    expect(layout.template).toBe('minmax(300px, 1fr) 90px 104px 64px 132px');
    expect(layout.minWidth).toBe(860);
    const wide = columnLayout(
      { density: 'comfortable', hidden: [], widths: { name: 800, addresses: 600 } },
      { anyTags: true, canMutate: false },
    );
    expect(wide.minWidth).toBe(800 + 104 + 92 + 600 + 104 + 160);
  });
});
