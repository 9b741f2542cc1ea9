/**
 * Schedules: a command or a saved action run at the ticks of a cron expression in a time zone (`/schedules`).
 * Listed with their next and last run; created and edited in a form (cron, time zone, what runs, targets or
 * group), paused and resumed from the list; each schedule's history opens below the list, a run's per-target
 * results as on the Run page.
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { Schedule, ScheduleCreate, ScheduleRun, ScheduleUpdate } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { EditDeleteButtons } from '../../components/EditDeleteButtons';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { TextField } from '../../components/TextField';
import { Loading } from '../../components/Loading';
import { Time } from '../../components/Time';
import { useT } from '../../i18n/I18nProvider';
import { RunResults, RunSummary } from '../run/RunResults';
import { completedRun } from '../actions/completed-run';
import { useSavedActions } from '../actions/ActionsPage';
import { PanelForm } from '../../components/PanelForm';
import {
  changedTargetBody,
  noTargets,
  storedChoice,
  targetBody,
  targetsChosen,
  targetsProblem,
  type TargetChoice,
} from '../../components/target-choice';
import { TargetsPicker } from '../../components/TargetsPicker';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { ConfirmMutationDialog } from '../../components/ConfirmMutationDialog';
import { QueryStates } from '../../components/QueryStates';
import { PageHeader } from '../../components/PageHeader';
import { MaintenanceNotice } from '../maintenance/MaintenanceNotice';

const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
const zones: readonly string[] = Intl.supportedValuesOf('timeZone');

/** A new schedule, or (with `schedule`) the edit of one: only what changed is sent. */
function ScheduleForm({ schedule, onDone }: { schedule?: Schedule; onDone: () => void }) {
  const { t } = useT();
  const actions = useSavedActions();
  const [name, setName] = useState(schedule?.name ?? '');
  const [cron, setCron] = useState(schedule?.cron ?? '0 3 * * *');
  const [timezone, setTimezone] = useState(schedule?.timezone ?? browserZone);
  const [runs, setRuns] = useState<'command' | 'action'>(schedule?.action_id ? 'action' : 'command');
  const [command, setCommand] = useState(schedule?.command ?? '');
  const [actionId, setActionId] = useState(schedule?.action_id ?? '');
  const [ownTargets, setOwnTargets] = useState(true);
  const [choice, setChoice] = useState<TargetChoice>(schedule ? storedChoice(schedule) : noTargets);
  const [targetsTouched, setTargetsTouched] = useState(false);
  const [onlyInWindow, setOnlyInWindow] = useState(schedule?.only_in_maintenance_window ?? false);
  const needsTargets = runs === 'command' || ownTargets;
  const save = useResourceMutation({
    mutationFn: async () => {
      if (schedule) {
        const what =
          runs === 'command'
            ? command !== schedule.command
              ? { command }
              : {}
            : actionId !== schedule.action_id
              ? { action_id: actionId }
              : {};
        const body: ScheduleUpdate = {
          name,
          ...(cron !== schedule.cron ? { cron } : {}),
          ...(timezone !== schedule.timezone ? { timezone } : {}),
          ...(onlyInWindow !== schedule.only_in_maintenance_window
            ? { only_in_maintenance_window: onlyInWindow }
            : {}),
          ...what,
          ...(needsTargets ? changedTargetBody(choice, targetsTouched) : {}),
        };
        return (await hub.call('schedules.update', { params: { id: schedule.id }, body })).data;
      }
      const body: ScheduleCreate = {
        name,
        cron,
        timezone,
        only_in_maintenance_window: onlyInWindow,
        ...(runs === 'command' ? { command } : { action_id: actionId }),
        ...(needsTargets ? targetBody(choice) : {}),
      };
      return (await hub.call('schedules.create', { body })).data;
    },
    invalidates: [['schedules']],
    onSuccess: onDone,
  });
  const { problems } = save;
  return (
    <PanelForm
      title={schedule ? t('common.editNamed', { name: schedule.name }) : t('schedules.new')}
      mutation={save}
      onSubmit={() => {
        save.mutate();
      }}
      onCancel={schedule ? onDone : undefined}
      submitLabel={t('schedules.save')}
      canSubmit={
        name.trim() !== '' &&
        cron.trim() !== '' &&
        (runs === 'command' ? command.trim() !== '' : actionId !== '') &&
        (!needsTargets || targetsChosen(choice))
      }
    >
      <TextField label={t('schedules.name')} problem={problems.name} value={name} onChange={setName} />
      <div className="run-options">
        <TextField
          label={t('schedules.cron')}
          hint={t('schedules.cronHint')}
          problem={problems.cron}
          className="mono"
          value={cron}
          onChange={setCron}
        />
        <TextField
          label={t('schedules.timezone')}
          problem={problems.timezone}
          list="schedule-zones"
          value={timezone}
          onChange={setTimezone}
        />
        <datalist id="schedule-zones">
          {zones.map((z) => (
            <option key={z} value={z} />
          ))}
        </datalist>
      </div>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={onlyInWindow}
          onChange={(e) => {
            setOnlyInWindow(e.target.checked);
          }}
        />
        {t('schedules.onlyInWindow')}
      </label>
      <fieldset className="target-mode">
        <legend>{t('schedules.runs')}</legend>
        <label className="checkbox">
          <input
            type="radio"
            name="schedule-runs"
            checked={runs === 'command'}
            onChange={() => {
              setRuns('command');
            }}
          />
          {t('schedules.runsCommand')}
        </label>
        <label className="checkbox">
          <input
            type="radio"
            name="schedule-runs"
            checked={runs === 'action'}
            onChange={() => {
              setRuns('action');
            }}
          />
          {t('schedules.runsAction')}
        </label>
      </fieldset>
      {runs === 'command' ? (
        <TextField
          label={t('schedules.command')}
          problem={problems.command}
          multiline
          className="mono"
          rows={2}
          spellCheck={false}
          value={command}
          onChange={setCommand}
        />
      ) : (
        <div className="field">
          <label htmlFor="schedule-action">{t('schedules.action')}</label>
          <select
            id="schedule-action"
            value={actionId}
            onChange={(e) => {
              setActionId(e.target.value);
            }}
          >
            <option value="">{t('schedules.chooseAction')}</option>
            {actions.data?.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
          <label className="checkbox">
            <input
              type="checkbox"
              checked={!ownTargets}
              onChange={(e) => {
                setOwnTargets(!e.target.checked);
              }}
            />
            {t('schedules.actionTargets')}
          </label>
          {problems.command && <span className="field-error">{problems.command}</span>}
        </div>
      )}
      {needsTargets && (
        <TargetsPicker
          idPrefix="schedule"
          choice={choice}
          onChange={(next) => {
            setChoice(next);
            setTargetsTouched(true);
          }}
          problem={targetsProblem(problems)}
        />
      )}
    </PanelForm>
  );
}

function History({ schedule }: { schedule: Schedule }) {
  const { t } = useT();
  const [open, setOpen] = useState<string | null>(null);
  const runs = useQuery({
    queryKey: ['schedules', 'runs', schedule.id],
    queryFn: async () =>
      (await hub.call('schedules.runs', { params: { id: schedule.id }, query: { per_page: 50 } })).data,
    refetchInterval: 10_000,
  });
  const chosen: ScheduleRun | undefined = runs.data?.find((r) => r.id === open);
  const shown = chosen ? completedRun(chosen.results, chosen.summary) : null;
  return (
    <section className="panel" aria-labelledby="history-title">
      <h2 id="history-title">{t('schedules.runsOf', { name: schedule.name })}</h2>
      {runs.isPending && <Loading label={t('schedules.loadingRuns')} />}
      {runs.isError && <ErrorNotice error={runs.error} />}
      {runs.isSuccess && runs.data.length === 0 && <EmptyState title={t('schedules.noRuns')} />}
      {runs.isSuccess && runs.data.length > 0 && (
        <table className="data-table" aria-label={t('schedules.runsTable')}>
          <thead>
            <tr>
              <th scope="col">{t('schedules.runColumn', { column: 'tick' })}</th>
              <th scope="col">{t('schedules.runColumn', { column: 'status' })}</th>
              <th scope="col">{t('schedules.runColumn', { column: 'targets' })}</th>
              <th scope="col">{t('schedules.runColumn', { column: 'note' })}</th>
            </tr>
          </thead>
          <tbody>
            {runs.data.map((r) => (
              <tr key={r.id}>
                <th scope="row">
                  {r.results.length > 0 ? (
                    <button
                      type="button"
                      className="link-button"
                      aria-expanded={open === r.id}
                      onClick={() => {
                        setOpen(open === r.id ? null : r.id);
                      }}
                    >
                      <Time value={r.tick_at} />
                    </button>
                  ) : (
                    <Time value={r.tick_at} />
                  )}
                </th>
                <td>{t('schedules.runStatus', { status: r.status })}</td>
                <td>
                  {r.status === 'missed'
                    ? t('schedules.missed', { n: r.ticks })
                    : r.summary
                      ? t('schedules.okOf', { ok: r.summary.ok, total: r.summary.total })
                      : ''}
                </td>
                <td className="cell-wide" translate="no">
                  {r.error ?? ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {chosen && shown && (
        <div className="run-results">
          <p className="run-summary">
            <RunSummary run={shown} />
          </p>
          <RunResults run={shown} names={new Map()} />
        </div>
      )}
    </section>
  );
}

export function SchedulesPage() {
  const { t } = useT();
  const { canMutate } = useSession();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Schedule | null>(null);
  const [viewing, setViewing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Schedule | null>(null);
  const schedules = useQuery({
    queryKey: ['schedules', 'list'],
    queryFn: async () => (await hub.call('schedules.list', { query: { per_page: 500 } })).data,
    refetchInterval: 15_000,
  });
  const remove = useResourceMutation({
    mutationFn: async (s: Schedule) => (await hub.call('schedules.delete', { params: { id: s.id } })).data,
    invalidates: [['schedules']],
    onSuccess: () => {
      setDeleting(null);
      setViewing(null);
    },
  });
  const toggle = useResourceMutation({
    mutationFn: async (s: Schedule) =>
      (await hub.call('schedules.update', { params: { id: s.id }, body: { enabled: !s.enabled } })).data,
    invalidates: [['schedules']],
  });
  const viewed = schedules.data?.find((s) => s.id === viewing);

  return (
    <section className="page" aria-labelledby="schedules-title">
      <PageHeader
        titleId="schedules-title"
        title={t('schedules.title')}
        action={
          canMutate &&
          !creating && {
            label: t('schedules.new'),
            onClick: () => {
              setCreating(true);
            },
          }
        }
      />
      <MaintenanceNotice label={t('schedules.inMaintenance')} />
      {creating && (
        <ScheduleForm
          onDone={() => {
            setCreating(false);
          }}
        />
      )}
      {editing && (
        <ScheduleForm
          key={editing.id}
          schedule={editing}
          onDone={() => {
            setEditing(null);
          }}
        />
      )}
      {toggle.isError && <ErrorNotice error={toggle.error} />}
      <QueryStates
        query={schedules}
        loadingLabel={t('schedules.loading')}
        empty={
          <EmptyState title={t('schedules.none')}>{canMutate && <p>{t('schedules.noneText')}</p>}</EmptyState>
        }
      >
        {(rows) => (
          <div className="rows-scroll">
            <table className="data-table" aria-label={t('schedules.title')}>
              <thead>
                <tr>
                  <th scope="col">{t('schedules.column', { column: 'name' })}</th>
                  <th scope="col">{t('schedules.column', { column: 'when' })}</th>
                  <th scope="col">{t('schedules.column', { column: 'runs' })}</th>
                  <th scope="col">{t('schedules.column', { column: 'next' })}</th>
                  <th scope="col">{t('schedules.column', { column: 'last' })}</th>
                  <th scope="col">
                    <span className="visually-hidden">{t('common.actions')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((s) => (
                  <tr key={s.id} data-schedule-id={s.id}>
                    <th scope="row">
                      <span translate="no">{s.name}</span>
                      {s.only_in_maintenance_window && (
                        <span className="chip" title={t('schedules.windowOnlyTitle')}>
                          {t('schedules.windowOnly')}
                        </span>
                      )}
                    </th>
                    <td>
                      <code className="mono">{s.cron}</code>{' '}
                      <span className="muted small" translate="no">
                        {s.timezone}
                      </span>
                    </td>
                    <td className="cell-wide">
                      {s.command !== null ? (
                        <code className="mono">{s.command}</code>
                      ) : (
                        t('schedules.savedAction', { id: s.action_id ?? '' })
                      )}
                    </td>
                    <td className="next-run">
                      {!s.enabled ? (
                        <span className="muted">{t('schedules.paused')}</span>
                      ) : s.next_run_at ? (
                        <Time value={s.next_run_at} />
                      ) : (
                        t('schedules.noNextRun')
                      )}
                    </td>
                    <td>
                      <Time value={s.last_run_at} empty={t('time.never')} />
                    </td>
                    <td className="cell-actions">
                      <button
                        type="button"
                        className="small"
                        aria-label={t('schedules.historyOf', { name: s.name })}
                        onClick={() => {
                          setViewing(s.id);
                        }}
                      >
                        {t('schedules.history')}
                      </button>
                      {canMutate && (
                        <>
                          <button
                            type="button"
                            className="small"
                            aria-label={t('schedules.toggleNamed', {
                              enabled: s.enabled ? 'yes' : 'no',
                              name: s.name,
                            })}
                            disabled={toggle.isPending}
                            onClick={() => {
                              toggle.mutate(s);
                            }}
                          >
                            {t('schedules.toggle', { enabled: s.enabled ? 'yes' : 'no' })}
                          </button>
                          <EditDeleteButtons
                            name={s.name}
                            onEdit={() => {
                              setEditing(s);
                            }}
                            onDelete={() => {
                              setDeleting(s);
                            }}
                            small
                          />
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryStates>
      {viewed && <History schedule={viewed} />}
      <ConfirmMutationDialog
        record={deleting}
        title={(record) => t('schedules.deleteTitle', { name: record.name })}
        confirmLabel={t('common.delete')}
        mutation={remove}
        onClose={() => {
          setDeleting(null);
        }}
      >
        {() => <p>{t('schedules.deleteText')}</p>}
      </ConfirmMutationDialog>
    </section>
  );
}
