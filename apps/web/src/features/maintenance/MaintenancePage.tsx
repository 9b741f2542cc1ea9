/**
 * Maintenance windows: each with when it holds (now and next), its reason; a new window, one-off or recurring,
 * on assets or a group, and the edit of one in the same form, for roles that may change them; the hub's refusal
 * shown under the field it names.
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { MaintenanceWindow } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { EditDeleteButtons } from '../../components/EditDeleteButtons';
import { ConfirmMutationDialog } from '../../components/ConfirmMutationDialog';
import { EmptyState } from '../../components/EmptyState';
import { FormDialog } from '../../components/FormDialog';
import { PageHeader } from '../../components/PageHeader';
import { QueryStates } from '../../components/QueryStates';
import { TargetsPicker } from '../../components/TargetsPicker';
import { TextField } from '../../components/TextField';
import { targetsChosen } from '../../components/target-choice';
import { countText, formatTime } from '../../components/units';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { maintenanceListKey } from './maintenance-keys';
import {
  coversMoreThanPicker,
  createBody,
  timingReady,
  updateBody,
  windowForm,
  type WindowForm,
} from './window-form';

const invalidates = [['maintenance'], ['alerts'], ['schedules']];

function whenText(w: MaintenanceWindow): string {
  if (w.kind === 'one_off') return `${formatTime(w.starts_at)} – ${formatTime(w.ends_at)}`;
  return `${w.cron ?? ''} for ${String(w.duration_minutes ?? 0)} min (${w.timezone})`;
}

const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** A new window, or (with `existing`) the edit of one: the same form, prefilled, sending only what changed. */
function WindowFormDialog({
  existing,
  onClose,
}: {
  existing: MaintenanceWindow | null;
  onClose: () => void;
}) {
  const [form, setForm] = useState<WindowForm>(() => windowForm(existing, browserZone));
  const [targetsTouched, setTargetsTouched] = useState(false);
  const set =
    <K extends keyof WindowForm>(key: K) =>
    (value: WindowForm[K]) => {
      setForm((f) => ({ ...f, [key]: value }));
    };
  const save = useResourceMutation({
    mutationFn: async () => {
      if (!existing) return (await hub.call('maintenance.create', { body: createBody(form) })).data;
      const body = updateBody(existing, form, targetsTouched);
      if (Object.keys(body).length === 0) return existing;
      return (await hub.call('maintenance.update', { params: { id: existing.id }, body })).data;
    },
    invalidates,
    onSuccess: () => {
      onClose();
    },
  });
  const { problems } = save;
  const { kind } = form;
  return (
    <FormDialog
      title={existing ? `Edit ${existing.name}` : 'New maintenance window'}
      mutation={save}
      onSubmit={() => {
        save.mutate();
      }}
      onClose={onClose}
      submitLabel={existing ? 'Save window' : 'Create window'}
      canSubmit={targetsChosen(form.targets) && timingReady(form)}
    >
      <TextField
        label="Name"
        problem={problems.name}
        value={form.name}
        required
        autoFocus
        onChange={set('name')}
      />
      <TextField
        label="Reason"
        problem={problems.reason}
        value={form.reason}
        required
        multiline
        rows={2}
        onChange={set('reason')}
      />
      {existing && coversMoreThanPicker(existing) && (
        <p className="muted small">
          This window covers {countText(existing.asset_ids.length, 'asset')} and{' '}
          {countText(existing.group_ids.length, 'group')}; targets chosen here replace them all.
        </p>
      )}
      <TargetsPicker
        idPrefix="maintenance"
        choice={form.targets}
        onChange={(next) => {
          set('targets')(next);
          setTargetsTouched(true);
        }}
        problem={problems.asset_ids ?? problems.group_ids}
      />
      <fieldset className="target-mode">
        <legend>When</legend>
        <label className="checkbox">
          <input
            type="radio"
            name="maintenance-kind"
            checked={kind === 'one_off'}
            onChange={() => {
              set('kind')('one_off');
            }}
          />
          Once
        </label>
        <label className="checkbox">
          <input
            type="radio"
            name="maintenance-kind"
            checked={kind === 'recurring'}
            onChange={() => {
              set('kind')('recurring');
            }}
          />
          Recurring
        </label>
      </fieldset>
      {kind === 'one_off' ? (
        <>
          <TextField
            label="Starts"
            type="datetime-local"
            problem={problems.starts_at}
            value={form.start}
            required
            onChange={set('start')}
          />
          <TextField
            label="Ends"
            type="datetime-local"
            problem={problems.ends_at}
            value={form.end}
            required
            onChange={set('end')}
          />
        </>
      ) : (
        <>
          <TextField
            label="Cron"
            hint="When each occurrence starts: minute hour day month weekday"
            problem={problems.cron}
            value={form.cron}
            required
            onChange={set('cron')}
          />
          <TextField
            label="Duration (minutes)"
            type="number"
            problem={problems.duration_minutes}
            value={form.duration}
            required
            onChange={set('duration')}
          />
          <TextField
            label="Time zone"
            problem={problems.timezone}
            value={form.timezone}
            required
            onChange={set('timezone')}
          />
        </>
      )}
    </FormDialog>
  );
}

export function MaintenancePage() {
  const { canMutate } = useSession();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<MaintenanceWindow | null>(null);
  const [removing, setRemoving] = useState<MaintenanceWindow | null>(null);
  const windows = useQuery({
    queryKey: maintenanceListKey,
    queryFn: async () => (await hub.call('maintenance.list', { query: { per_page: 500 } })).data,
  });
  const remove = useResourceMutation({
    mutationFn: async (w: MaintenanceWindow) =>
      (await hub.call('maintenance.delete', { params: { id: w.id } })).data,
    invalidates,
    onSuccess: () => {
      setRemoving(null);
    },
  });
  return (
    <section className="page" aria-labelledby="maintenance-title">
      <PageHeader
        titleId="maintenance-title"
        title="Maintenance"
        count={windows.isSuccess ? { n: windows.data.length, noun: 'window' } : undefined}
        action={
          canMutate && {
            label: 'New window',
            onClick: () => {
              setCreating(true);
            },
          }
        }
      />
      <QueryStates
        query={windows}
        loadingLabel="Loading maintenance windows"
        empty={
          <EmptyState title="No maintenance windows">
            <p>While a window holds, alerts on its assets are recorded suppressed instead of notified.</p>
          </EmptyState>
        }
      >
        {(rows) => (
          <div className="rows-scroll">
            <table className="data-table" aria-label="Maintenance windows">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">When</th>
                  <th scope="col">Now</th>
                  <th scope="col">Next</th>
                  <th scope="col">Covers</th>
                  <th scope="col">Reason</th>
                  {canMutate && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {rows.map((w) => (
                  <tr key={w.id}>
                    <th scope="row">{w.name}</th>
                    <td>{whenText(w)}</td>
                    <td>
                      {w.current ? (
                        <strong>In progress until {formatTime(w.current.ends_at)}</strong>
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                    <td>
                      {w.next_occurrences.length > 0 ? (
                        <ul className="plain-list" aria-label={`Next occurrences of ${w.name}`}>
                          {w.next_occurrences.slice(0, 3).map((o) => (
                            <li key={o.starts_at}>{formatTime(o.starts_at)}</li>
                          ))}
                        </ul>
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                    <td>
                      {w.asset_ids.length > 0 && `${String(w.asset_ids.length)} asset(s)`}
                      {w.asset_ids.length > 0 && w.group_ids.length > 0 && ', '}
                      {w.group_ids.length > 0 && `${String(w.group_ids.length)} group(s)`}
                    </td>
                    <td className="cell-wide">{w.reason}</td>
                    {canMutate && (
                      <td>
                        <div className="row-actions">
                          <EditDeleteButtons
                            name={w.name}
                            deleteWord="remove"
                            small
                            onEdit={() => {
                              setEditing(w);
                            }}
                            onDelete={() => {
                              setRemoving(w);
                            }}
                          />
                        </div>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryStates>
      {(creating || editing) && (
        <WindowFormDialog
          key={editing?.id ?? 'new'}
          existing={editing}
          onClose={() => {
            setCreating(false);
            setEditing(null);
          }}
        />
      )}
      <ConfirmMutationDialog
        record={removing}
        title={(w) => `Remove ${w.name}?`}
        confirmLabel="Remove window"
        mutation={remove}
        onClose={() => {
          setRemoving(null);
        }}
      >
        {() => <p>An occurrence holding now ends now; alerts are notified again.</p>}
      </ConfirmMutationDialog>
    </section>
  );
}
