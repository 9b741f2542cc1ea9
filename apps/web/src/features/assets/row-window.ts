/**
 * The window of a fixed-height list that is in the page: the rows in view and `overscan` either side. With
 * one height for every row the window is arithmetic on the scroll offset: nothing is measured, no row's size
 * is cached, and a scroll inside one row changes nothing, so the list renders when the window moves by a row
 * and never per pixel.
 */
import { useLayoutEffect, useState, type RefObject } from 'react';

export interface RowWindow {
  /** The first row in the page (0-based). */
  first: number;
  /** The last row in the page, inclusive; below `first` when there is none. */
  last: number;
}

export interface RowWindowOptions {
  count: number;
  rowHeight: number;
  /** Rows kept in the page beyond each edge of the view, so a fast scroll finds them already there. */
  overscan: number;
  /** What covers the top of the view and is not a row (a sticky header), in pixels. */
  headerHeight: number;
}

/** The window for a scroll offset and a view height, both in pixels. */
export function rowWindowAt(scrollTop: number, viewHeight: number, options: RowWindowOptions): RowWindow {
  const { count, rowHeight, overscan, headerHeight } = options;
  if (count <= 0 || rowHeight <= 0) return { first: 0, last: -1 };
  const top = Math.max(0, scrollTop);
  const bottom = top + Math.max(0, viewHeight - headerHeight);
  const first = Math.min(count - 1, Math.max(0, Math.floor(top / rowHeight) - overscan));
  const last = Math.min(count - 1, Math.max(first, Math.ceil(bottom / rowHeight) - 1 + overscan));
  return { first, last };
}

/**
 * The window of the list scrolled by `scrollRef`, kept current: one passive scroll listener that reads the
 * offset at the next animation frame (any number of scroll events in a frame cost one read), and a state
 * change only when the window moves.
 */
export function useRowWindow(
  scrollRef: RefObject<HTMLElement | null>,
  { count, rowHeight, overscan, headerHeight }: RowWindowOptions,
): RowWindow {
  // Before the first layout a guess (a laptop's view); the effect reads the real one before the first paint.
  const [shown, setShown] = useState<RowWindow>(() =>
    rowWindowAt(0, 800, { count, rowHeight, overscan, headerHeight }),
  );
  useLayoutEffect(() => {
    const element = scrollRef.current;
    if (!element) return;
    let frame = 0;
    const update = () => {
      frame = 0;
      const next = rowWindowAt(element.scrollTop, element.clientHeight, {
        count,
        rowHeight,
        overscan,
        headerHeight,
      });
      setShown((current) => (current.first === next.first && current.last === next.last ? current : next));
    };
    const schedule = () => {
      if (frame === 0) frame = requestAnimationFrame(update);
    };
    update();
    element.addEventListener('scroll', schedule, { passive: true });
    // The view's height changes with the browser window's.
    const resize = new ResizeObserver(schedule);
    resize.observe(element);
    return () => {
      element.removeEventListener('scroll', schedule);
      resize.disconnect();
      cancelAnimationFrame(frame);
    };
  }, [scrollRef, count, rowHeight, overscan, headerHeight]);
  // A shorter list (a filter) shows at once, before the effect has read the offset again.
  return shown.last < count
    ? shown
    : { first: Math.min(shown.first, Math.max(0, count - 1)), last: count - 1 };
}
