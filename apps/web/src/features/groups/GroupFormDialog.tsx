/** Create a group, or rename one and change its description; the hub's refusal under the field it names. */
import { useState, type SyntheticEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Group } from '@svc/protocol';
import { hub } from '../../api/client';
import { fieldProblems } from '../../components/form-problems';
import { Dialog } from '../../components/Dialog';
import { ErrorNotice } from '../../components/ErrorNotice';

export function GroupFormDialog({
  group,
  onClose,
  onSaved,
}: {
  /** The group to edit; null creates one. */
  group: Group | null;
  onClose: () => void;
  onSaved?: (group: Group) => void;
}) {
  const client = useQueryClient();
  const [name, setName] = useState(group?.name ?? '');
  const [description, setDescription] = useState(group?.description ?? '');
  const save = useMutation({
    mutationFn: async () => {
      const body = { name: name.trim(), description: description.trim() || null };
      return group
        ? (await hub.call('groups.update', { params: { id: group.id }, body })).data
        : (await hub.call('groups.create', { body })).data;
    },
    onSuccess: async (saved) => {
      await client.invalidateQueries({ queryKey: ['groups'] });
      await client.invalidateQueries({ queryKey: ['status'] });
      onSaved?.(saved);
      onClose();
    },
  });
  const problems = fieldProblems(save.error);
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Dialog open title={group ? `Edit ${group.name}` : 'New group'} onClose={onClose}>
      <form className="asset-form" onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor="group-name">Name</label>
          <input
            id="group-name"
            value={name}
            required
            autoFocus
            aria-invalid={problems.name !== undefined}
            aria-describedby={problems.name !== undefined ? 'group-name-problem' : undefined}
            onChange={(e) => {
              setName(e.target.value);
            }}
          />
          {problems.name !== undefined && (
            <span className="field-error" id="group-name-problem">
              {problems.name}
            </span>
          )}
        </div>
        <div className="field">
          <label htmlFor="group-description">Description</label>
          <textarea
            id="group-description"
            rows={2}
            value={description}
            aria-invalid={problems.description !== undefined}
            onChange={(e) => {
              setDescription(e.target.value);
            }}
          />
          {problems.description !== undefined && <span className="field-error">{problems.description}</span>}
        </div>
        {save.isError && <ErrorNotice error={save.error} />}
        <div className="dialog-actions">
          <button type="button" onClick={onClose} disabled={save.isPending}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : group ? 'Save' : 'Create group'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
