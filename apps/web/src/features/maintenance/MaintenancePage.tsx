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
import { Time } from '../../components/Time';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { useT } from '../../i18n/I18nProvider';
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

function WhenText({ window: w }: { window: MaintenanceWindow }) {
  const { rich } = useT();
  if (w.kind === 'one_off') {
    return (
      <>
        <Time value={w.starts_at} /> – <Time value={w.ends_at} />
      </>
    );
  }
  return rich('maintenance.recurringWhen', {
    cron: <span translate="no">{w.cron ?? ''}</span>,
    minutes: w.duration_minutes ?? 0,
    zone: <span translate="no">{w.timezone}</span>,
  });
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
  const { t } = useT();
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
      title={existing ? t('common.editNamed', { name: existing.name }) : t('maintenance.newTitle')}
      mutation={save}
      onSubmit={() => {
        save.mutate();
      }}
      onClose={onClose}
      submitLabel={existing ? t('maintenance.save') : t('maintenance.create')}
      canSubmit={targetsChosen(form.targets) && timingReady(form)}
    >
      <TextField
        label={t('maintenance.name')}
        problem={problems.name}
        value={form.name}
        required
        autoFocus
        onChange={set('name')}
      />
      <TextField
        label={t('maintenance.reason')}
        translate="no"
        problem={problems.reason}
        value={form.reason}
        required
        multiline
        rows={2}
        onChange={set('reason')}
      />
      {existing && coversMoreThanPicker(existing) && (
        <p className="muted small">
          {t('maintenance.coversMore', {
            assets: t('maintenance.assets', { n: existing.asset_ids.length }),
            groups: t('maintenance.groups', { n: existing.group_ids.length }),
          })}
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
        <legend>{t('maintenance.when')}</legend>
        <label className="checkbox">
          <input
            type="radio"
            name="maintenance-kind"
            checked={kind === 'one_off'}
            onChange={() => {
              set('kind')('one_off');
            }}
          />
          {t('maintenance.once')}
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
          {t('maintenance.recurring')}
        </label>
      </fieldset>
      {kind === 'one_off' ? (
        <>
          <TextField
            label={t('maintenance.starts')}
            type="datetime-local"
            problem={problems.starts_at}
            value={form.start}
            required
            onChange={set('start')}
          />
          <TextField
            label={t('maintenance.ends')}
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
            label={t('maintenance.cron')}
            hint={t('maintenance.cronHint')}
            problem={problems.cron}
            value={form.cron}
            required
            onChange={set('cron')}
          />
          <TextField
            label={t('maintenance.duration')}
            type="number"
            problem={problems.duration_minutes}
            value={form.duration}
            required
            onChange={set('duration')}
          />
          <TextField
            label={t('maintenance.timezone')}
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
  const { t, rich } = useT();
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
        title={t('maintenance.title')}
        count={windows.isSuccess ? t('maintenance.count', { n: windows.data.length }) : undefined}
        action={
          canMutate && {
            label: t('maintenance.new'),
            onClick: () => {
              setCreating(true);
            },
          }
        }
      />
      <QueryStates
        query={windows}
        loadingLabel={t('maintenance.loading')}
        empty={
          <EmptyState title={t('maintenance.none')}>
            <p>{t('maintenance.noneText')}</p>
          </EmptyState>
        }
      >
        {(rows) => (
          <div className="rows-scroll">
            <table className="data-table" aria-label={t('maintenance.windows')}>
              <thead>
                <tr>
                  <th scope="col">{t('maintenance.name')}</th>
                  <th scope="col">{t('maintenance.when')}</th>
                  <th scope="col">{t('maintenance.now')}</th>
                  <th scope="col">{t('maintenance.next')}</th>
                  <th scope="col">{t('maintenance.covers')}</th>
                  <th scope="col">{t('maintenance.reason')}</th>
                  {canMutate && <th scope="col">{t('common.actions')}</th>}
                </tr>
              </thead>
              <tbody>
                {rows.map((w) => (
                  <tr key={w.id}>
                    <th scope="row" translate="no">
                      {w.name}
                    </th>
                    <td>
                      <WhenText window={w} />
                    </td>
                    <td>
                      {w.current ? (
                        <strong>
                          {rich('maintenance.inProgress', { time: <Time value={w.current.ends_at} /> })}
                        </strong>
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                    <td>
                      {w.next_occurrences.length > 0 ? (
                        <ul className="plain-list" aria-label={t('maintenance.nextOf', { name: w.name })}>
                          {w.next_occurrences.slice(0, 3).map((o) => (
                            <li key={o.starts_at}>
                              <Time value={o.starts_at} />
                            </li>
                          ))}
                        </ul>
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                    <td>
                      {w.asset_ids.length > 0 && t('maintenance.assets', { n: w.asset_ids.length })}
                      {w.asset_ids.length > 0 && w.group_ids.length > 0 && ', '}
                      {w.group_ids.length > 0 && t('maintenance.groups', { n: w.group_ids.length })}
                    </td>
                    <td className="cell-wide" translate="no">
                      {w.reason}
                    </td>
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
        title={(w) => t('maintenance.removeTitle', { name: w.name })}
        confirmLabel={t('maintenance.remove')}
        mutation={remove}
        onClose={() => {
          setRemoving(null);
        }}
      >
        {() => <p>{t('maintenance.removeText')}</p>}
      </ConfirmMutationDialog>
    </section>
  );
}
