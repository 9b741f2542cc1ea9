/**
 * What the phone's terminal and desktop screens share: the session line in the debug banner, the session
 * activity notification while the session runs, the status badge and the end button, and the error an end
 * that failed leaves. The screen itself (xterm or noVNC) is the child.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { errorText } from '../../api/client';
import { updateConnection } from './connection';
import { SessionActivity } from './SessionActivity';

export function MobileSessionShell({
  kind,
  assetId,
  running,
  live,
  statusText,
  badge,
  badgeLabel,
  endLabel,
  onEnd,
  children,
}: {
  kind: 'terminal' | 'desktop';
  assetId: string;
  running: boolean;
  /** Shows the badge as live. */
  live: boolean;
  /** The status shown in the debug banner's session line. */
  statusText: string;
  badge: string;
  /** Names the badge for assistive technology and makes it a live status region. */
  badgeLabel?: string;
  endLabel: string;
  /** Ends the session (or leaves an ended one); an error it throws is shown below the screen. */
  onEnd: () => Promise<void>;
  children: ReactNode;
}) {
  const [error, setError] = useState<string | null>(null);
  const screen = useRef<HTMLDivElement>(null);
  // The session opens below the asset's details: once its screen shows (and so has its size), bring it
  // between the top bar and the tab bar.
  // Only the first time: a re-attach must not pull back a user who scrolled away.
  const shown = useRef(false);
  useEffect(() => {
    if (!live || shown.current) return;
    shown.current = true;
    screen.current?.scrollIntoView({ block: 'start' });
  }, [live]);
  useEffect(() => {
    updateConnection({ session: `${kind} ${statusText}` });
  }, [kind, statusText]);
  useEffect(
    () => () => {
      updateConnection({ session: null });
    },
    [],
  );
  const end = async () => {
    setError(null);
    try {
      await onEnd();
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <div ref={screen} className={`m-session-screen m-${kind}-screen`}>
      {running ? <SessionActivity assetId={assetId} kind={kind} /> : null}
      <p className="m-row">
        <span
          aria-label={badgeLabel}
          role={badgeLabel === undefined ? undefined : 'status'}
          className={live ? 'm-badge m-badge-live' : 'm-badge'}
        >
          {badge}
        </span>
        <button type="button" onClick={() => void end()}>
          {endLabel}
        </button>
      </p>
      {children}
      {error ? (
        <p role="alert" className="m-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
