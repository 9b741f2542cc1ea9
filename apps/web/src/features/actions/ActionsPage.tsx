/**
 * Saved actions: a command with its targets or group, kept to run again (`/actions`). Listed with what they
 * run on; created and edited in a form with the asset picker or a group; run with one click, each target's
 * result shown as on the Run page. Running needs `actions:exec` on the hub's side; viewers see the list only.
 */
import { useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { execLimits, type ActionRun, type SavedAction, type SavedActionUpdate } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { EditDeleteButtons } from '../../components/EditDeleteButtons';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { TextField } from '../../components/TextField';
import { Time } from '../../components/Time';
import { useT } from '../../i18n/I18nProvider';
import { RunResults, RunSummary } from '../run/RunResults';
import { TimeoutField } from '../run/TimeoutField';
import { completedRun } from './completed-run';
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
import { TargetsPicker, useGroupList } from '../../components/TargetsPicker';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { ConfirmMutationDialog } from '../../components/ConfirmMutationDialog';
import { QueryStates } from '../../components/QueryStates';
import { PageHeader } from '../../components/PageHeader';

const actionsKey = ['actions', 'list'] as const;

export function useSavedActions() {
  return useQuery({
    queryKey: actionsKey,
    queryFn: async () => (await hub.call('actions.list', { query: { per_page: 500 } })).data,
  });
}

/** A new saved action, or (with `action`) the edit of one: only what changed is sent. */
function ActionForm({ action, onDone }: { action?: SavedAction; onDone: () => void }) {
  const { t } = useT();
  const [name, setName] = useState(action?.name ?? '');
  const [command, setCommand] = useState(action?.command ?? '');
  const [timeout, setTimeoutText] = useState(String(action?.timeout ?? execLimits.defaultTimeout));
  const [choice, setChoice] = useState<TargetChoice>(action ? storedChoice(action) : noTargets);
  const [targetsTouched, setTargetsTouched] = useState(false);
  const save = useResourceMutation({
    mutationFn: async () => {
      const timeoutField = Number.isInteger(Number(timeout)) ? { timeout: Number(timeout) } : {};
      if (action) {
        const body: SavedActionUpdate = {
          name,
          ...timeoutField,
          ...(command !== action.command ? { command } : {}),
          ...changedTargetBody(choice, targetsTouched),
        };
        return (await hub.call('actions.update', { params: { id: action.id }, body })).data;
      }
      return (
        await hub.call('actions.create', {
          body: { name, command, ...timeoutField, ...targetBody(choice) },
        })
      ).data;
    },
    invalidates: [['actions']],
    onSuccess: () => {
      setName('');
      setCommand('');
      setChoice(noTargets);
      onDone();
    },
  });
  const { problems } = save;
  return (
    <PanelForm
      title={action ? t('common.editNamed', { name: action.name }) : t('actions.newTitle')}
      mutation={save}
      onSubmit={() => {
        save.mutate();
      }}
      onCancel={action ? onDone : undefined}
      submitLabel={t('actions.save')}
      canSubmit={name.trim() !== '' && command.trim() !== '' && targetsChosen(choice)}
      beside={<TimeoutField value={timeout} onChange={setTimeoutText} problem={problems.timeout} />}
    >
      <TextField label={t('actions.name')} problem={problems.name} value={name} onChange={setName} />
      <TargetsPicker
        idPrefix="action"
        choice={choice}
        onChange={(next) => {
          setChoice(next);
          setTargetsTouched(true);
        }}
        problem={targetsProblem(problems)}
      />
      <TextField
        label={t('actions.command')}
        problem={problems.command}
        multiline
        className="mono"
        rows={3}
        spellCheck={false}
        value={command}
        placeholder="df -h"
        translate="no"
        onChange={setCommand}
      />
    </PanelForm>
  );
}

function TargetText({ action, groupName }: { action: SavedAction; groupName: (id: string) => string }) {
  const { rich, t } = useT();
  if (action.group !== null) {
    return rich('actions.onGroup', { name: <span translate="no">{groupName(action.group)}</span> });
  }
  return t('actions.onAssets', { n: action.targets?.length ?? 0 });
}

export function ActionsPage() {
  const { rich, t } = useT();
  const { canMutate } = useSession();
  const actions = useSavedActions();
  const groups = useGroupList();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<SavedAction | null>(null);
  const [deleting, setDeleting] = useState<SavedAction | null>(null);
  const [lastRun, setLastRun] = useState<{ action: SavedAction; run: ActionRun } | null>(null);
  const run = useMutation({
    mutationFn: async (action: SavedAction) => ({
      action,
      run: (await hub.call('actions.run', { params: { id: action.id } })).data,
    }),
    onSuccess: (answer) => {
      setLastRun(answer);
    },
  });
  const remove = useResourceMutation({
    mutationFn: async (action: SavedAction) =>
      (await hub.call('actions.delete', { params: { id: action.id } })).data,
    invalidates: [['actions']],
    onSuccess: () => {
      setDeleting(null);
    },
  });
  const groupName = (id: string) => groups.data?.find((g) => g.id === id)?.name ?? id;
  const shown = lastRun ? completedRun(lastRun.run.results, lastRun.run.summary) : null;

  return (
    <section className="page" aria-labelledby="actions-title">
      <PageHeader
        titleId="actions-title"
        title={t('actions.title')}
        action={
          canMutate &&
          !creating && {
            label: t('actions.new'),
            onClick: () => {
              setCreating(true);
            },
          }
        }
      />
      {creating && (
        <ActionForm
          onDone={() => {
            setCreating(false);
          }}
        />
      )}
      {editing && (
        <ActionForm
          key={editing.id}
          action={editing}
          onDone={() => {
            setEditing(null);
          }}
        />
      )}
      <QueryStates
        query={actions}
        loadingLabel={t('actions.loading')}
        empty={
          <EmptyState title={t('actions.none')}>{canMutate && <p>{t('actions.noneText')}</p>}</EmptyState>
        }
      >
        {(rows) => (
          <div className="rows-scroll">
            <table className="data-table" aria-label={t('actions.title')}>
              <thead>
                <tr>
                  <th scope="col">{t('actions.name')}</th>
                  <th scope="col">{t('actions.command')}</th>
                  <th scope="col">{t('actions.runsOn')}</th>
                  <th scope="col">{t('actions.created')}</th>
                  {canMutate && (
                    <th scope="col">
                      <span className="visually-hidden">{t('common.actions')}</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {rows.map((a) => (
                  <tr key={a.id} data-action-id={a.id}>
                    <th scope="row" translate="no">
                      {a.name}
                    </th>
                    <td className="cell-wide">
                      <code className="mono">{a.command}</code>
                    </td>
                    <td>
                      <TargetText action={a} groupName={groupName} />
                    </td>
                    <td>
                      <Time value={a.created_at} />
                    </td>
                    {canMutate && (
                      <td className="cell-actions">
                        <button
                          type="button"
                          className="small primary"
                          disabled={run.isPending}
                          aria-label={t('actions.runNamed', { name: a.name })}
                          onClick={() => {
                            run.mutate(a);
                          }}
                        >
                          {run.isPending && run.variables.id === a.id
                            ? t('actions.running')
                            : t('actions.run')}
                        </button>
                        <EditDeleteButtons
                          name={a.name}
                          onEdit={() => {
                            setEditing(a);
                          }}
                          onDelete={() => {
                            setDeleting(a);
                          }}
                          small
                        />
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryStates>
      {run.isError && <ErrorNotice error={run.error} />}
      {lastRun && shown && (
        <section aria-labelledby="results-title" className="run-results">
          <h2 id="results-title">
            {rich('actions.resultsOf', { name: <span translate="no">{lastRun.action.name}</span> })}
          </h2>
          <p aria-live="polite" className="run-summary">
            <RunSummary run={shown} />
          </p>
          <RunResults run={shown} names={new Map()} />
        </section>
      )}
      <ConfirmMutationDialog
        record={deleting}
        title={(record) => t('actions.deleteTitle', { name: record.name })}
        confirmLabel={t('common.delete')}
        mutation={remove}
        onClose={() => {
          setDeleting(null);
        }}
      >
        {() => <p>{t('actions.deleteText')}</p>}
      </ConfirmMutationDialog>
    </section>
  );
}
