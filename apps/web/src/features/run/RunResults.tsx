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
import { runRows, type RunState } from './run-state';

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
      <h4>{label}</h4>
      <pre className="mono">{text}</pre>
    </div>
  );
}

function ResultBody({ result }: { result: ExecResult }) {
  const empty = result.stdout === '' && result.stderr === '';
  return (
    <>
      {result.error && <p className="result-error">{result.error}</p>}
      {result.truncated && (
        <p className="chip truncated" title="The output was longer than the hub keeps">
          output truncated
        </p>
      )}
      {result.left_running && (
        <p className="muted small">
          The command left {result.left_running.count} process{result.left_running.count === 1 ? '' : 'es'}{' '}
          running; the agent {result.left_running.killed ? 'ended them' : 'could not end them all'}.
        </p>
      )}
      <Output label="stdout" text={result.stdout} />
      <Output label="stderr" text={result.stderr} />
      {empty && result.status === 'ok' && <p className="muted small">No output.</p>}
    </>
  );
}

export function RunResults({ run, names }: { run: RunState; names: ReadonlyMap<string, string> }) {
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
              <span className="result-name">
                <Link to={`/assets/${encodeURIComponent(assetId)}`}>{nameOf(assetId)}</Link>
              </span>
              <span className="result-status">{result ? result.status : 'running…'}</span>
              {result && (
                <>
                  <span className="result-exit">
                    exit code {result.exit_code === null ? '—' : result.exit_code}
                  </span>
                  <span className="result-duration">{formatDuration(result.duration_ms)}</span>
                </>
              )}
            </summary>
            {result ? <ResultBody result={result} /> : <p className="muted small">Waiting for the agent…</p>}
          </details>
        </li>
      ))}
    </ul>
  );
}
