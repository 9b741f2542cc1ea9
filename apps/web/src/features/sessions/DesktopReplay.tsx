/** A desktop recording played back in noVNC (decision 0030), at a chosen speed, from the start. */
import { parseDesktopRecording } from '@svc/protocol';
import { useCallback, useMemo, useState } from 'react';
import { DesktopReplayChannel, type ReplayProgress } from './desktop-replay-channel';
import { formatNumber } from '../../components/units';
import { useT } from '../../i18n/I18nProvider';
import { DesktopScreen } from './DesktopScreen';

const speeds = [1, 2, 4, 8] as const;

const browserClock = {
  setTimeout: (run: () => void, ms: number) => window.setTimeout(run, ms),
  clearTimeout: (id: number) => {
    window.clearTimeout(id);
  },
};

export function DesktopReplay({ bytes, label }: { bytes: Uint8Array; label: string }) {
  const { t } = useT();
  const parsed = useMemo(() => parseDesktopRecording(bytes), [bytes]);
  const [speed, setSpeed] = useState<(typeof speeds)[number]>(1);
  const [run, setRun] = useState(0);
  const [progress, setProgress] = useState<ReplayProgress | null>(null);
  const recording = parsed.ok ? parsed.value : null;
  // A new channel (and so a new screen) for each play: the recording always replays from its start.
  const channel = useCallback(() => {
    if (!recording) throw new Error('no recording');
    return new DesktopReplayChannel(recording, {
      speed,
      clock: browserClock,
      now: () => performance.now(),
      onProgress: setProgress,
    });
  }, [recording, speed, run]); // `run` restarts the replay

  if (!parsed.ok) return <p className="state-bad">{t('sessions.cannotPlay', { problem: parsed.message })}</p>;
  const seconds = (ms: number) => formatNumber(ms / 1000, 1);
  return (
    <div className="desktop-replay">
      <div className="toolbar">
        <label>
          {t('sessions.speed')}{' '}
          <select
            value={speed}
            onChange={(event) => {
              setSpeed(Number(event.target.value) as (typeof speeds)[number]);
            }}
          >
            {speeds.map((s) => (
              <option key={s} value={s}>
                {t('sessions.speedValue', { speed: s })}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          onClick={() => {
            setProgress(null);
            setRun((n) => n + 1);
          }}
        >
          {t('sessions.playFromStart')}
        </button>
        <span className="muted" aria-live="polite">
          {progress
            ? t('sessions.progress', { at: seconds(progress.atMs), duration: seconds(progress.durationMs) })
            : ''}
          {progress?.done ? ` ${t('sessions.progressEnd')}` : ''}
          {parsed.value.truncated ? ` ${t('sessions.sizeBound')}` : ''}
        </span>
      </div>
      <DesktopScreen key={run} source={{ channel }} viewOnly label={label} />
    </div>
  );
}
