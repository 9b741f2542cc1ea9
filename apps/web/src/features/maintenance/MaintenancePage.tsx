/**
 * Maintenance windows: each with when it holds (now and next), its reason; a new window, one-off or recurring,
 * on assets or a group, for roles that may change them; the hub's refusal shown under the field it names.
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { MaintenanceWindow } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { ConfirmMutationDialog } from '../../components/ConfirmMutationDialog';
import { EmptyState } from '../../components/EmptyState';
import { FormDialog } from '../../components/FormDialog';
import { PageHeader } from '../../components/PageHeader';
import { QueryStates } from '../../components/QueryStates';
import { TargetsPicker } from '../../components/TargetsPicker';
import { TextField } from '../../components/TextField';
import { noTargets, targetsChosen, type TargetChoice } from '../../components/target-choice';
import { formatTime } from '../../components/units';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { maintenanceListKey } from './maintenance-keys';

const invalidates = [['maintenance'], ['alerts'], ['schedules']];

function whenText(w: MaintenanceWindow): string {
  if (w.kind === 'one_off') return `${formatTime(w.starts_at)} – ${formatTime(w.ends_at)}`;
  return `${w.cron ?? ''} for ${String(w.duration_minutes ?? 0)} min (${w.timezone})`;
}

/** A date-time input's local value as an instant (the input has no zone: the browser's own). */
function instantOf(local: string): string | undefined {
  const ms = Date.parse(local);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

function WindowFormDialog({ onClose }: { onClose: () => void }) {
  const [name, setName] = useState('');
  const [reason, setReason] = useState('');
  const [kind, setKind] = useState<'one_off' | 'recurring'>('one_off');
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [cron, setCron] = useState('0 2 * * 0');
  const [duration, setDuration] = useState('120');
  const [timezone, setTimezone] = useState(Intl.DateTimeFormat().resolvedOptions().timeZone);
  const [targets, setTargets] = useState<TargetChoice>(noTargets);
  const save = useResourceMutation({
    mutationFn: async () => {
      const where =
        targets.mode === 'assets'
          ? { asset_ids: targets.picked.map((p) => p.id) }
          : { group_ids: targets.groupId ? [targets.groupId] : [] };
      const startsAt = instantOf(start);
      const endsAt = instantOf(end);
      const when =
        kind === 'one_off'
          ? { ...(startsAt ? { starts_at: startsAt } : {}), ...(endsAt ? { ends_at: endsAt } : {}) }
          : { cron: cron.trim(), duration_minutes: Number(duration), timezone: timezone.trim() };
      return (
        await hub.call('maintenance.create', {
          body: { name: name.trim(), reason: reason.trim(), ...where, ...when },
        })
      ).data;
    },
    invalidates,
    onSuccess: () => {
      onClose();
    },
  });
  const { problems } = save;
  const oneOffMissing =
    kind === 'one_off' && (instantOf(start) === undefined || instantOf(end) === undefined);
  return (
    <FormDialog
      title="New maintenance window"
      mutation={save}
      onSubmit={() => {
        save.mutate();
      }}
      onClose={onClose}
      submitLabel="Create window"
      canSubmit={targetsChosen(targets) && !oneOffMissing}
    >
      <TextField label="Name" problem={problems.name} value={name} required autoFocus onChange={setName} />
      <TextField
        label="Reason"
        problem={problems.reason}
        value={reason}
        required
        multiline
        rows={2}
        onChange={setReason}
      />
      <TargetsPicker
        idPrefix="maintenance"
        choice={targets}
        onChange={setTargets}
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
              setKind('one_off');
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
              setKind('recurring');
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
            value={start}
            required
            onChange={setStart}
          />
          <TextField
            label="Ends"
            type="datetime-local"
            problem={problems.ends_at}
            value={end}
            required
            onChange={setEnd}
          />
        </>
      ) : (
        <>
          <TextField
            label="Cron"
            hint="When each occurrence starts: minute hour day month weekday"
            problem={problems.cron}
            value={cron}
            required
            onChange={setCron}
          />
          <TextField
            label="Duration (minutes)"
            type="number"
            problem={problems.duration_minutes}
            value={duration}
            required
            onChange={setDuration}
          />
          <TextField
            label="Time zone"
            problem={problems.timezone}
            value={timezone}
            required
            onChange={setTimezone}
          />
        </>
      )}
    </FormDialog>
  );
}

export function MaintenancePage() {
  const { canMutate } = useSession();
  const [creating, setCreating] = useState(false);
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
                        <button
                          type="button"
                          className="small"
                          onClick={() => {
                            setRemoving(w);
                          }}
                        >
                          Remove<span className="visually-hidden"> {w.name}</span>
                        </button>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryStates>
      {creating && (
        <WindowFormDialog
          onClose={() => {
            setCreating(false);
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
