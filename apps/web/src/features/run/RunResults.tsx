/**
 * One block per target: its name, status, exit code and duration, and its output (stdout and stderr in
 * monospace, folded when there are many targets). Names the page does not know yet are looked up, for the
 * first targets only, so a run on a large group costs a bounded number of calls.
 */
import { useQueries } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { ExecResult } from '@svc/protocol';
import { hub } from '../../api/client';
import { formatDuration } from '../../components/units';
import { useT } from '../../i18n/I18nProvider';
import { runRows, runTally, type RunState } from './run-state';

const namesLookedUp = 100;
/** With this many targets or fewer, outputs are shown unfolded. */
const unfoldedTargets = 3;

function useNames(ids: readonly string[], known: ReadonlyMap<string, string>): (id: string) => string {
  const unknown = ids.filter((id) => !known.has(id)).slice(0, namesLookedUp);
  const answers = useQueries({
    queries: unknown.map((id) => ({
      queryKey: ['assets', 'detail', id],
      queryFn: async () => (await hub.call('assets.get', { params: { id } })).data,
      staleTime: 60_000,
    })),
  });
  const found = new Map(known);
  for (const answer of answers) if (answer.data) found.set(answer.data.id, answer.data.name);
  return (id) => found.get(id) ?? id;
}

function Output({ label, text }: { label: string; text: string }) {
  if (text === '') return null;
  return (
    <div className="output">
      <h4 translate="no">{label}</h4>
      <pre className="mono" translate="no">
        {text}
      </pre>
    </div>
  );
}

/** `3 targets: 2 ok, 1 offline; …`: how the run stands, in the reader's language. */
export function RunSummary({ run }: { run: RunState }) {
  const { t } = useT();
  const { total, counts, waiting } = runTally(run);
  const targets = t('run.targets', { n: total });
  const summary =
    counts.length > 0
      ? t('run.summary', {
          targets,
          counts: counts.map(({ status, n }) => t('run.statusCount', { n, status })).join(', '),
        })
      : targets;
  return <>{waiting > 0 ? t('run.summaryRunning', { summary, n: waiting }) : summary}</>;
}

function ResultBody({ result }: { result: ExecResult }) {
  const { t } = useT();
  const empty = result.stdout === '' && result.stderr === '';
  return (
    <>
      {result.error && (
        <p className="result-error" translate="no">
          {result.error}
        </p>
      )}
      {result.truncated && (
        <p className="chip truncated" title={t('run.truncatedTitle')}>
          {t('run.truncated')}
        </p>
      )}
      {result.left_running && (
        <p className="muted small">
          {t('run.leftRunning', {
            n: result.left_running.count,
            killed: result.left_running.killed ? 'yes' : 'no',
          })}
        </p>
      )}
      <Output label="stdout" text={result.stdout} />
      <Output label="stderr" text={result.stderr} />
      {empty && result.status === 'ok' && <p className="muted small">{t('run.noOutput')}</p>}
    </>
  );
}

export function RunResults({ run, names }: { run: RunState; names: ReadonlyMap<string, string> }) {
  const { t } = useT();
  const rows = runRows(run);
  const nameOf = useNames(
    rows.map((r) => r.assetId),
    names,
  );
  const unfolded = rows.length <= unfoldedTargets;
  return (
    <ul className="results-list">
      {rows.map(({ assetId, result }) => (
        <li key={assetId} className={`result result-${result?.status ?? 'waiting'}`} data-asset-id={assetId}>
          <details open={unfolded}>
            <summary>
              <span className="result-name" translate="no">
                <Link to={`/assets/${encodeURIComponent(assetId)}`}>{nameOf(assetId)}</Link>
              </span>
              <span className="result-status">
                {t('run.status', { status: result?.status ?? 'running' })}
              </span>
              {result && (
                <>
                  <span className="result-exit">
                    {t('run.exitCode', { code: result.exit_code === null ? '—' : String(result.exit_code) })}
                  </span>
                  <span className="result-duration" translate="no">
                    {formatDuration(result.duration_ms)}
                  </span>
                </>
              )}
            </summary>
            {result ? <ResultBody result={result} /> : <p className="muted small">{t('run.waiting')}</p>}
          </details>
        </li>
      ))}
    </ul>
  );
}
