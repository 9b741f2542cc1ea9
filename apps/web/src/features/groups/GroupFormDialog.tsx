/** Create a group, or rename one and change its description; the hub's refusal under the field it names. */
import { useState } from 'react';
import type { Group } from '@svc/protocol';
import { hub } from '../../api/client';
import { FormDialog } from '../../components/FormDialog';
import { FormField } from '../../components/FormField';
import { useResourceMutation } from '../../components/use-resource-mutation';

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
  const [name, setName] = useState(group?.name ?? '');
  const [description, setDescription] = useState(group?.description ?? '');
  const save = useResourceMutation({
    mutationFn: async () => {
      const body = { name: name.trim(), description: description.trim() || null };
      return group
        ? (await hub.call('groups.update', { params: { id: group.id }, body })).data
        : (await hub.call('groups.create', { body })).data;
    },
    invalidates: [['groups'], ['status']],
    onSuccess: (saved) => {
      onSaved?.(saved);
      onClose();
    },
  });
  const { problems } = save;
  return (
    <FormDialog
      title={group ? `Edit ${group.name}` : 'New group'}
      mutation={save}
      onSubmit={() => {
        save.mutate();
      }}
      onClose={onClose}
      submitLabel={group ? 'Save' : 'Create group'}
    >
      <FormField label="Name" problem={problems.name}>
        {(control) => (
          <input
            {...control}
            value={name}
            required
            autoFocus
            onChange={(e) => {
              setName(e.target.value);
            }}
          />
        )}
      </FormField>
      <FormField label="Description" problem={problems.description}>
        {(control) => (
          <textarea
            {...control}
            rows={2}
            value={description}
            onChange={(e) => {
              setDescription(e.target.value);
            }}
          />
        )}
      </FormField>
    </FormDialog>
  );
}
