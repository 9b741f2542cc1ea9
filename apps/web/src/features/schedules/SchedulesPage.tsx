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
import { formatTime } from '../../components/units';
import { RunResults } from '../run/RunResults';
import { summaryText } from '../run/run-state';
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
      title={schedule ? `Edit ${schedule.name}` : 'New schedule'}
      mutation={save}
      onSubmit={() => {
        save.mutate();
      }}
      onCancel={schedule ? onDone : undefined}
      submitLabel="Save schedule"
      canSubmit={
        name.trim() !== '' &&
        cron.trim() !== '' &&
        (runs === 'command' ? command.trim() !== '' : actionId !== '') &&
        (!needsTargets || targetsChosen(choice))
      }
    >
      <TextField label="Name" problem={problems.name} value={name} onChange={setName} />
      <div className="run-options">
        <TextField
          label="Cron expression"
          hint="minute hour day month weekday; a sixth field first for seconds"
          problem={problems.cron}
          className="mono"
          value={cron}
          onChange={setCron}
        />
        <TextField
          label="Time zone"
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
        Only inside a maintenance window (a tick outside one is skipped)
      </label>
      <fieldset className="target-mode">
        <legend>Runs</legend>
        <label className="checkbox">
          <input
            type="radio"
            name="schedule-runs"
            checked={runs === 'command'}
            onChange={() => {
              setRuns('command');
            }}
          />
          A command
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
          A saved action
        </label>
      </fieldset>
      {runs === 'command' ? (
        <TextField
          label="Command"
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
          <label htmlFor="schedule-action">Saved action</label>
          <select
            id="schedule-action"
            value={actionId}
            onChange={(e) => {
              setActionId(e.target.value);
            }}
          >
            <option value="">Choose an action</option>
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
            On the action&apos;s own targets
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
      <h2 id="history-title">Runs of {schedule.name}</h2>
      {runs.isPending && <Loading label="Loading runs" />}
      {runs.isError && <ErrorNotice error={runs.error} />}
      {runs.isSuccess && runs.data.length === 0 && <EmptyState title="No runs yet" />}
      {runs.isSuccess && runs.data.length > 0 && (
        <table className="data-table" aria-label="Runs">
          <thead>
            <tr>
              <th scope="col">Tick</th>
              <th scope="col">Status</th>
              <th scope="col">Targets</th>
              <th scope="col">Note</th>
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
                      {formatTime(r.tick_at)}
                    </button>
                  ) : (
                    formatTime(r.tick_at)
                  )}
                </th>
                <td>{r.status}</td>
                <td>{shownSummary(r)}</td>
                <td className="cell-wide">{r.error ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {chosen && shown && (
        <div className="run-results">
          <p className="run-summary">{summaryText(shown)}</p>
          <RunResults run={shown} names={new Map()} />
        </div>
      )}
    </section>
  );
}

function shownSummary(run: ScheduleRun): string {
  if (run.status === 'missed') return `${run.ticks} tick${run.ticks === 1 ? '' : 's'} missed`;
  const s = run.summary;
  if (!s) return '';
  return `${s.ok} ok of ${s.total}`;
}

export function SchedulesPage() {
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
        title="Schedules"
        action={
          canMutate &&
          !creating && {
            label: 'New schedule',
            onClick: () => {
              setCreating(true);
            },
          }
        }
      />
      <MaintenanceNotice label="assets are in a maintenance window: schedules marked for it may run" />
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
        loadingLabel="Loading schedules"
        empty={
          <EmptyState title="No schedules yet">
            {canMutate && (
              <p>A schedule runs a command or a saved action by itself, at the times you give.</p>
            )}
          </EmptyState>
        }
      >
        {(rows) => (
          <div className="rows-scroll">
            <table className="data-table" aria-label="Schedules">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">When</th>
                  <th scope="col">Runs</th>
                  <th scope="col">Next run</th>
                  <th scope="col">Last run</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((s) => (
                  <tr key={s.id} data-schedule-id={s.id}>
                    <th scope="row">
                      {s.name}
                      {s.only_in_maintenance_window && (
                        <span className="chip" title="Runs only inside a maintenance window">
                          in a window only
                        </span>
                      )}
                    </th>
                    <td>
                      <code className="mono">{s.cron}</code> <span className="muted small">{s.timezone}</span>
                    </td>
                    <td className="cell-wide">
                      {s.command !== null ? (
                        <code className="mono">{s.command}</code>
                      ) : (
                        `saved action ${s.action_id ?? ''}`
                      )}
                    </td>
                    <td className="next-run">
                      {!s.enabled ? (
                        <span className="muted">paused</span>
                      ) : s.next_run_at ? (
                        formatTime(s.next_run_at)
                      ) : (
                        'none'
                      )}
                    </td>
                    <td>
                      {s.last_run_at ? formatTime(s.last_run_at) : <span className="muted">never</span>}
                    </td>
                    <td className="cell-actions">
                      <button
                        type="button"
                        className="small"
                        aria-label={`History of ${s.name}`}
                        onClick={() => {
                          setViewing(s.id);
                        }}
                      >
                        History
                      </button>
                      {canMutate && (
                        <>
                          <button
                            type="button"
                            className="small"
                            aria-label={`${s.enabled ? 'Pause' : 'Resume'} ${s.name}`}
                            disabled={toggle.isPending}
                            onClick={() => {
                              toggle.mutate(s);
                            }}
                          >
                            {s.enabled ? 'Pause' : 'Resume'}
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
        title={(record) => `Delete ${record.name}?`}
        confirmLabel="Delete"
        mutation={remove}
        onClose={() => {
          setDeleting(null);
        }}
      >
        {() => <p>The schedule stops and its run history is removed with it.</p>}
      </ConfirmMutationDialog>
    </section>
  );
}
