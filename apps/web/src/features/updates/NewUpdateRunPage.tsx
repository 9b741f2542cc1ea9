/**
 * A new update run (`/updates/runs/new`): targets (assets or a group, `?asset=` or `?group=` preselects),
 * dry run or apply, all / security / named packages, reboot if required, how many at a time, when to stop,
 * when to start (now, at a time, the next maintenance window). Once the hub takes it, its page opens. Viewers
 * may not start runs, and are told so.
 */
import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useNavigate, useSearchParams } from 'react-router';
import { updateRunLimits, updateRunModes, updateRunStarts, updateSelections } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { PageHeader } from '../../components/PageHeader';
import { PanelForm } from '../../components/PanelForm';
import { TargetsPicker } from '../../components/TargetsPicker';
import { TextField } from '../../components/TextField';
import { targetsProblem, withAsset } from '../../components/target-choice';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { emptyRunForm, runBody, runFormReady, type RunForm } from './run-form';
import { updatesKey } from './updates-keys';
import { modeText, selectionText } from './updates-text';
import { UpdatesNav } from './UpdatesNav';

const startText = { now: 'Now', at: 'At a time', next_window: 'In the next maintenance window' } as const;

/** The form as the address opens it: `?group=`, `?mode=apply`; `?asset=` is added once its name is read. */
function initialForm(params: URLSearchParams): RunForm {
  const group = params.get('group');
  return {
    ...emptyRunForm,
    ...(group ? { targets: { mode: 'group', picked: [], groupId: group } } : {}),
    ...(params.get('mode') === 'apply' ? { mode: 'apply' } : {}),
  };
}

function Radios<V extends string>({
  legend,
  name,
  options,
  label,
  value,
  onChange,
}: {
  legend: string;
  name: string;
  options: readonly V[];
  label: (v: V) => string;
  value: V;
  onChange: (v: V) => void;
}) {
  return (
    <fieldset className="target-mode">
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option} className="checkbox">
          <input
            type="radio"
            name={name}
            checked={value === option}
            onChange={() => {
              onChange(option);
            }}
          />
          {label(option)}
        </label>
      ))}
    </fieldset>
  );
}

function RunFormPanel() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [form, setForm] = useState<RunForm>(() => initialForm(params));
  const set =
    <K extends keyof RunForm>(key: K) =>
    (value: RunForm[K]) => {
      setForm((f) => ({ ...f, [key]: value }));
    };
  const assetId = params.get('asset');
  const preselected = useQuery({
    queryKey: ['assets', 'detail', assetId ?? ''],
    queryFn: async () => (await hub.call('assets.get', { params: { id: assetId ?? '' } })).data,
    enabled: assetId !== null,
  });
  useEffect(() => {
    const asset = preselected.data;
    if (asset) setForm((f) => ({ ...f, targets: withAsset(f.targets, { id: asset.id, name: asset.name }) }));
  }, [preselected.data]);

  const start = useResourceMutation({
    mutationFn: async () => (await hub.call('updates.runs.create', { body: runBody(form) })).data,
    invalidates: [updatesKey],
    onSuccess: async (run) => {
      await navigate(`/updates/runs/${encodeURIComponent(run.id)}`);
    },
  });
  const { problems } = start;
  const apply = form.mode === 'apply';
  return (
    <PanelForm
      title="New update run"
      mutation={start}
      onSubmit={() => {
        start.mutate();
      }}
      submitLabel={
        form.start === 'now' ? (apply ? 'Apply updates' : 'Start dry run') : `Schedule ${modeText[form.mode]}`
      }
      canSubmit={runFormReady(form)}
    >
      <TargetsPicker
        idPrefix="update-run"
        choice={form.targets}
        onChange={set('targets')}
        problem={targetsProblem(problems)}
      />
      <Radios
        legend="Mode"
        name="update-run-mode"
        options={updateRunModes}
        label={(m) => (m === 'dry_run' ? 'Dry run (the manager simulates)' : 'Apply (install)')}
        value={form.mode}
        onChange={set('mode')}
      />
      <Radios
        legend="Updates"
        name="update-run-selection"
        options={updateSelections}
        label={(s) => selectionText[s].replace(/^./, (c) => c.toUpperCase())}
        value={form.selection}
        onChange={set('selection')}
      />
      {form.selection === 'named' && (
        <TextField
          label="Packages"
          hint="Names separated by spaces, commas or lines"
          problem={problems.packages}
          multiline
          rows={2}
          className="mono"
          spellCheck={false}
          value={form.packages}
          onChange={set('packages')}
        />
      )}
      <label className="checkbox">
        <input
          type="checkbox"
          checked={form.refresh}
          onChange={(e) => {
            set('refresh')(e.target.checked);
          }}
        />
        Refresh the package lists first
      </label>
      {apply && (
        <label className="checkbox">
          <input
            type="checkbox"
            checked={form.reboot}
            onChange={(e) => {
              set('reboot')(e.target.checked);
            }}
          />
          Reboot a machine that needs it afterwards
        </label>
      )}
      <div className="run-options">
        <TextField
          label="At most at a time"
          type="number"
          min={1}
          max={updateRunLimits.maxConcurrency}
          problem={problems.concurrency}
          value={form.concurrency}
          onChange={set('concurrency')}
        />
        <TextField
          label="Stop after failures"
          hint="Empty: no limit"
          type="number"
          min={1}
          problem={problems.max_failures}
          value={form.maxFailures}
          onChange={set('maxFailures')}
        />
        {apply && (
          <TextField
            label="Timeout per machine (minutes)"
            type="number"
            min={1}
            max={updateRunLimits.maxTimeoutMinutes}
            problem={problems.timeout_minutes}
            value={form.timeout}
            onChange={set('timeout')}
          />
        )}
      </div>
      <Radios
        legend="Start"
        name="update-run-start"
        options={updateRunStarts}
        label={(s) => startText[s]}
        value={form.start}
        onChange={set('start')}
      />
      {form.start === 'at' && (
        <TextField
          label="Starts at"
          type="datetime-local"
          problem={problems.scheduled_at}
          value={form.at}
          onChange={set('at')}
        />
      )}
      {problems.start && <span className="field-error">{problems.start}</span>}
    </PanelForm>
  );
}

export function NewUpdateRunPage() {
  const { canMutate } = useSession();
  return (
    <section className="page" aria-labelledby="new-update-run-title">
      <PageHeader titleId="new-update-run-title" title="Updates" />
      <UpdatesNav />
      {canMutate ? (
        <RunFormPanel />
      ) : (
        <p className="notice">Your role can see the fleet&apos;s updates but not start update runs.</p>
      )}
    </section>
  );
}
