/**
 * Touch gestures on a noVNC screen, as VNC Viewer and Jump Desktop have them: a tap is a left click at the
 * point, a long press (half a second, still) or a two-finger tap a right click, a two-finger drag the scroll
 * wheel, a one-finger drag a left-button drag. noVNC's own recogniser holds a long press for a whole second
 * and shows nothing while it waits, so this one takes the screen's touches first (capture phase, the page
 * neither scrolls nor zooms) and hands noVNC the gestures it recognised as the `gesturestart`/`gesturemove`/
 * `gestureend` events noVNC's RFB turns into pointer events (onetap, twotap, drag, longpress, twodrag).
 */

/** How long a still finger waits before it is a right-button press. */
const longPressMs = 500;
/** A finger moved this far (CSS pixels) is dragging, not tapping. */
const moveThreshold = 10;
/** A second finger down this soon after the first makes a two-finger gesture. */
const secondFingerMs = 250;

type Gesture = 'onetap' | 'twotap' | 'drag' | 'longpress' | 'twodrag';

interface Point {
  x: number;
  y: number;
}

export interface TouchGestureEvents {
  /** A long press began at this point of the viewport (show a cue there), or ended (null). */
  onLongPress: (at: Point | null) => void;
}

/** Starts taking `element`'s touches; answers the function that stops. */
export function attachTouchGestures(element: HTMLElement, events: TouchGestureEvents): () => void {
  const starts = new Map<number, Point>();
  const now = new Map<number, Point>();
  let firstAt = 0;
  let fingers = 0;
  // pending: fingers down, nothing recognised yet; done: a gesture ended, waiting for every finger up.
  let phase: 'idle' | 'pending' | Gesture | 'done' = 'idle';
  let timer: ReturnType<typeof setTimeout> | undefined;

  const centre = (points: Map<number, Point>): Point => {
    let x = 0;
    let y = 0;
    for (const p of points.values()) {
      x += p.x;
      y += p.y;
    }
    const n = Math.max(points.size, 1);
    return { x: x / n, y: y / n };
  };
  const emit = (
    type: 'gesturestart' | 'gesturemove' | 'gestureend',
    gesture: Gesture,
    at: Point,
    magnitude = { x: 0, y: 0 },
  ) => {
    const canvas = element.querySelector('canvas');
    if (!canvas) return;
    const detail = {
      type: gesture,
      clientX: at.x,
      clientY: at.y,
      magnitudeX: magnitude.x,
      magnitudeY: magnitude.y,
    };
    canvas.dispatchEvent(new CustomEvent(type, { detail }));
  };
  const movedFar = () => {
    for (const [id, p] of now) {
      const s = starts.get(id);
      if (s && Math.hypot(p.x - s.x, p.y - s.y) > moveThreshold) return true;
    }
    return false;
  };
  // The two-finger drag's distance: how far the fingers' centre moved since they went down.
  const travel = (): Point => {
    const from = centre(starts);
    const to = centre(now);
    return { x: to.x - from.x, y: to.y - from.y };
  };

  const onStart = (event: TouchEvent) => {
    event.preventDefault();
    event.stopPropagation();
    for (const touch of Array.from(event.changedTouches)) {
      const p = { x: touch.clientX, y: touch.clientY };
      if (phase === 'idle') {
        phase = 'pending';
        firstAt = Date.now();
        fingers = 0;
        starts.clear();
        now.clear();
        clearTimeout(timer);
        timer = setTimeout(() => {
          if (phase !== 'pending' || fingers !== 1) return;
          phase = 'longpress';
          const at = centre(now);
          emit('gesturestart', 'longpress', at);
          events.onLongPress(at);
        }, longPressMs);
      } else if (phase === 'pending' && fingers === 1 && Date.now() - firstAt <= secondFingerMs) {
        clearTimeout(timer);
      } else {
        // A third finger, or one too late: no gesture this time.
        if (phase === 'pending') phase = 'done';
        continue;
      }
      fingers += 1;
      starts.set(touch.identifier, p);
      now.set(touch.identifier, p);
    }
  };

  const onMove = (event: TouchEvent) => {
    event.preventDefault();
    event.stopPropagation();
    for (const touch of Array.from(event.changedTouches)) {
      if (now.has(touch.identifier)) now.set(touch.identifier, { x: touch.clientX, y: touch.clientY });
    }
    if (phase === 'pending' && movedFar()) {
      clearTimeout(timer);
      if (fingers === 1) {
        phase = 'drag';
        emit('gesturestart', 'drag', centre(starts));
      } else {
        phase = 'twodrag';
        emit('gesturestart', 'twodrag', centre(starts));
      }
    }
    if (phase === 'drag' || phase === 'longpress') emit('gesturemove', phase, centre(now));
    else if (phase === 'twodrag') emit('gesturemove', 'twodrag', centre(starts), travel());
  };

  const onEnd = (event: TouchEvent) => {
    event.preventDefault();
    event.stopPropagation();
    let lifted = 0;
    for (const touch of Array.from(event.changedTouches)) {
      if (now.has(touch.identifier)) lifted += 1;
    }
    const remaining = event.touches.length;
    if (lifted > 0 && phase !== 'done' && phase !== 'idle') {
      clearTimeout(timer);
      if (phase === 'pending') {
        // A tap counts once every finger of it is up.
        if (remaining === 0) {
          const tap = fingers === 1 ? 'onetap' : 'twotap';
          emit('gesturestart', tap, centre(starts));
          emit('gestureend', tap, centre(starts));
          phase = 'done';
        }
      } else {
        if (phase === 'longpress') events.onLongPress(null);
        emit('gestureend', phase, phase === 'twodrag' ? centre(starts) : centre(now), travel());
        phase = 'done';
      }
    }
    if (remaining === 0) {
      clearTimeout(timer);
      phase = 'idle';
    }
  };

  const options = { capture: true, passive: false } as const;
  element.addEventListener('touchstart', onStart, options);
  element.addEventListener('touchmove', onMove, options);
  element.addEventListener('touchend', onEnd, options);
  element.addEventListener('touchcancel', onEnd, options);
  return () => {
    clearTimeout(timer);
    element.removeEventListener('touchstart', onStart, options);
    element.removeEventListener('touchmove', onMove, options);
    element.removeEventListener('touchend', onEnd, options);
    element.removeEventListener('touchcancel', onEnd, options);
  };
}
