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
import { useT } from '../../i18n/I18nProvider';
import { emptyRunForm, runBody, runFormReady, type RunForm } from './run-form';
import { updatesKey } from './updates-keys';
import { UpdatesNav } from './UpdatesNav';

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
  const { t } = useT();
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
      title={t('updates.newRun')}
      mutation={start}
      onSubmit={() => {
        start.mutate();
      }}
      submitLabel={t('updates.submit', { start: form.start, mode: form.mode })}
      canSubmit={runFormReady(form)}
    >
      <TargetsPicker
        idPrefix="update-run"
        choice={form.targets}
        onChange={set('targets')}
        problem={targetsProblem(problems)}
      />
      <Radios
        legend={t('updates.modeLabel')}
        name="update-run-mode"
        options={updateRunModes}
        label={(mode) => t('updates.modeOption', { mode })}
        value={form.mode}
        onChange={set('mode')}
      />
      <Radios
        legend={t('updates.selectionLegend')}
        name="update-run-selection"
        options={updateSelections}
        label={(selection) => t('updates.selectionOption', { selection })}
        value={form.selection}
        onChange={set('selection')}
      />
      {form.selection === 'named' && (
        <TextField
          label={t('updates.packages')}
          hint={t('updates.packagesHint')}
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
        {t('updates.refreshFirst')}
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
          {t('updates.rebootAfter')}
        </label>
      )}
      <div className="run-options">
        <TextField
          label={t('updates.concurrency')}
          type="number"
          min={1}
          max={updateRunLimits.maxConcurrency}
          problem={problems.concurrency}
          value={form.concurrency}
          onChange={set('concurrency')}
        />
        <TextField
          label={t('updates.maxFailures')}
          hint={t('updates.maxFailuresHint')}
          type="number"
          min={1}
          problem={problems.max_failures}
          value={form.maxFailures}
          onChange={set('maxFailures')}
        />
        {apply && (
          <TextField
            label={t('updates.timeout')}
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
        legend={t('updates.startLegend')}
        name="update-run-start"
        options={updateRunStarts}
        label={(start) => t('updates.startOption', { start })}
        value={form.start}
        onChange={set('start')}
      />
      {form.start === 'at' && (
        <TextField
          label={t('updates.startsAt')}
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
  const { t } = useT();
  const { canMutate } = useSession();
  return (
    <section className="page" aria-labelledby="new-update-run-title">
      <PageHeader titleId="new-update-run-title" title={t('updates.title')} />
      <UpdatesNav />
      {canMutate ? <RunFormPanel /> : <p className="notice">{t('updates.viewerNotice')}</p>}
    </section>
  );
}
