/**
 * Run a command on one asset, several, or a group (`POST /exec` as an NDJSON stream): each target's result
 * shows as it arrives, with its status, exit code, duration and output. `?asset=<id>` (from an asset's
 * page) or `?group=<id>` preselects the targets. Viewers may not run commands, and are told so.
 */
import { useEffect, useRef, useState, type SyntheticEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { execLimits, type ExecManyRequest } from '@svc/protocol';
import { ExecStreamBrokenError } from '@svc/sdk';
import { hub } from '../../api/client';
import { fieldProblems } from '../../components/form-problems';
import { useSession } from '../../app/session';
import { AssetPicker, type PickedAsset } from '../../components/AssetPicker';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n/I18nProvider';
import { addResult, endRun, startRun, type RunState } from './run-state';
import { RunResults, RunSummary } from './RunResults';
import { TimeoutField } from './TimeoutField';

type TargetMode = 'assets' | 'group';

function usePreselected(assetId: string | null) {
  return useQuery({
    queryKey: ['assets', 'detail', assetId ?? ''],
    queryFn: async () => (await hub.call('assets.get', { params: { id: assetId ?? '' } })).data,
    enabled: assetId !== null,
  });
}

function useGroups() {
  return useQuery({
    queryKey: ['groups', 'list', 'all'],
    queryFn: async () => (await hub.call('groups.list', { query: { per_page: 500 } })).data,
    staleTime: 30_000,
  });
}

export function RunPage() {
  const { t, rich } = useT();
  const { canMutate } = useSession();
  const [params] = useSearchParams();
  const [mode, setMode] = useState<TargetMode>(params.get('group') ? 'group' : 'assets');
  const [picked, setPicked] = useState<PickedAsset[]>([]);
  const [groupId, setGroupId] = useState(params.get('group') ?? '');
  const [command, setCommand] = useState('');
  const [timeout, setTimeoutText] = useState(String(execLimits.defaultTimeout));
  const [run, setRun] = useState<RunState | null>(null);
  const [error, setError] = useState<unknown>(null);
  const abort = useRef<AbortController | null>(null);
  const names = useRef(new Map<string, string>());
  const preselected = usePreselected(params.get('asset'));
  const groups = useGroups();

  useEffect(() => {
    const asset = preselected.data;
    if (asset) setPicked((list) => (list.some((p) => p.id === asset.id) ? list : [...list, asset]));
  }, [preselected.data]);
  useEffect(() => () => abort.current?.abort(), []);

  if (!canMutate) {
    return (
      <section className="page" aria-labelledby="run-title">
        <h1 id="run-title">{t('run.title')}</h1>
        <p className="notice">{t('run.viewerNotice')}</p>
      </section>
    );
  }

  const group = groups.data?.find((g) => g.id === groupId);
  for (const p of picked) names.current.set(p.id, p.name);
  const problems = fieldProblems(error);
  const timeoutValue = Number(timeout);
  const ready =
    command.trim() !== '' &&
    (mode === 'assets' ? picked.length > 0 : groupId !== '') &&
    !(run?.running ?? false);

  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    if (!ready) return;
    const body: ExecManyRequest = {
      command,
      ...(Number.isInteger(timeoutValue) ? { timeout: timeoutValue } : {}),
      ...(mode === 'assets' ? { targets: picked.map((p) => p.id) } : { group: groupId }),
    };
    const controller = new AbortController();
    abort.current = controller;
    setError(null);
    setRun(startRun(mode === 'assets' ? picked.map((p) => p.id) : (group?.asset_ids ?? [])));
    hub
      .execStream(body, {
        signal: controller.signal,
        onResult: (result) => {
          setRun((state) => (state ? addResult(state, result) : state));
        },
      })
      .then((summary) => {
        setRun((state) => (state ? endRun(state, summary) : state));
      })
      .catch((caught: unknown) => {
        setRun((state) => (state ? endRun(state, null) : state));
        if (!(caught instanceof DOMException && caught.name === 'AbortError')) setError(caught);
      });
  };

  return (
    <section className="page run-page" aria-labelledby="run-title">
      <div className="page-header">
        <h1 id="run-title">{t('run.title')}</h1>
      </div>
      <form className="run-form panel" onSubmit={submit} noValidate>
        <fieldset className="target-mode">
          <legend>{t('targets.legend')}</legend>
          <label className="checkbox">
            <input
              type="radio"
              name="mode"
              checked={mode === 'assets'}
              onChange={() => {
                setMode('assets');
              }}
            />
            {t('targets.assets')}
          </label>
          <label className="checkbox">
            <input
              type="radio"
              name="mode"
              checked={mode === 'group'}
              onChange={() => {
                setMode('group');
              }}
            />
            {t('targets.group')}
          </label>
        </fieldset>
        {mode === 'assets' ? (
          <div className="field">
            <AssetPicker
              label={t('targets.add')}
              picked={new Set(picked.map((p) => p.id))}
              onPick={(asset) => {
                setPicked((list) => [...list, asset]);
              }}
            />
            {preselected.isError && <ErrorNotice error={preselected.error} />}
            {picked.length > 0 ? (
              <ul className="chips" aria-label={t('targets.chosen')}>
                {picked.map((p) => (
                  <li key={p.id} className="chip">
                    <span translate="no">{p.name}</span>
                    <button
                      type="button"
                      className="chip-remove"
                      aria-label={t('common.removeNamed', { name: p.name })}
                      onClick={() => {
                        setPicked((list) => list.filter((x) => x.id !== p.id));
                      }}
                    >
                      <span translate="no">×</span>
                    </button>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted small">{t('targets.none')}</p>
            )}
          </div>
        ) : (
          <div className="field">
            <label htmlFor="run-group">{t('targets.groupLabel')}</label>
            <select
              id="run-group"
              value={groupId}
              onChange={(e) => {
                setGroupId(e.target.value);
              }}
            >
              <option value="">{t('targets.chooseGroup')}</option>
              {groups.data?.map((g) => (
                <option key={g.id} value={g.id}>
                  {t('targets.groupOption', { name: g.name, n: g.asset_ids.length })}
                </option>
              ))}
            </select>
            {groups.isError && <ErrorNotice error={groups.error} />}
            {groups.isSuccess && groups.data.length === 0 && (
              <p className="muted small">
                {rich('run.noGroups', { link: <Link to="/groups">{t('run.makeGroup')}</Link> })}
              </p>
            )}
          </div>
        )}
        <div className="field">
          <label htmlFor="run-command">{t('run.command')}</label>
          <textarea
            id="run-command"
            className="mono"
            translate="no"
            rows={3}
            spellCheck={false}
            value={command}
            aria-invalid={problems.command !== undefined}
            onChange={(e) => {
              setCommand(e.target.value);
            }}
            onKeyDown={(e) => {
              // Ctrl+Enter runs, as in a terminal's "send".
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) submit(e);
            }}
            placeholder="uptime"
          />
          {problems.command && <span className="field-error">{problems.command}</span>}
        </div>
        <div className="run-options">
          <TimeoutField value={timeout} onChange={setTimeoutText} problem={problems.timeout} />
          <div className="run-buttons">
            <button type="submit" className="primary" disabled={!ready}>
              {run?.running ? t('run.running') : t('run.run')}
            </button>
            {run?.running && (
              <button
                type="button"
                onClick={() => {
                  abort.current?.abort();
                }}
              >
                {t('run.stopWaiting')}
              </button>
            )}
          </div>
        </div>
        {run?.running && <p className="muted small">{t('run.stopNote')}</p>}
      </form>
      {error !== null && (
        <ErrorNotice
          error={
            error instanceof ExecStreamBrokenError
              ? new Error(t('run.streamBroken', { message: error.message }))
              : error
          }
        />
      )}
      {run && (
        <section aria-labelledby="results-title" className="run-results">
          <h2 id="results-title">{t('run.results')}</h2>
          <p aria-live="polite" className="run-summary">
            <RunSummary run={run} />
          </p>
          <RunResults run={run} names={names.current} />
        </section>
      )}
    </section>
  );
}
