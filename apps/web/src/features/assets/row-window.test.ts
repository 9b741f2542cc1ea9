import { describe, expect, it } from 'vitest';
import { rowWindowAt } from './row-window';

const list = { count: 10_000, rowHeight: 40, overscan: 10, headerHeight: 40 };

describe('the window of a fixed-height list', () => {
  it('holds the rows in view and the overscan below them at the top', () => {
    // 600 px of view less the 40 px header: rows 0..13 in view, 10 more below.
    expect(rowWindowAt(0, 600, list)).toEqual({ first: 0, last: 23 });
  });

  it('holds the overscan on both sides in the middle', () => {
    // Offset 200,000 px is row 5,000; 560 px of rows in view: 5,000..5,013.
    expect(rowWindowAt(200_000, 600, list)).toEqual({ first: 4990, last: 5023 });
  });

  it('stays the same while a scroll stays within a row', () => {
    expect(rowWindowAt(200_001, 600, list)).toEqual(rowWindowAt(200_039, 600, list));
    expect(rowWindowAt(200_040, 600, list)).toEqual({ first: 4991, last: 5024 });
  });

  it('ends at the last row', () => {
    expect(rowWindowAt(400_000 - 560, 600, list)).toEqual({ first: 9976, last: 9999 });
    // An offset past the end (a list that just got shorter) still gives rows that exist.
    expect(rowWindowAt(1_000_000, 600, { ...list, count: 30 })).toEqual({ first: 29, last: 29 });
  });

  it('is empty for an empty list', () => {
    expect(rowWindowAt(0, 600, { ...list, count: 0 })).toEqual({ first: 0, last: -1 });
  });
});
