/** Create a group, or rename one and change its description; the hub's refusal under the field it names. */
import { useState } from 'react';
import type { Group } from '@svc/protocol';
import { hub } from '../../api/client';
import { FormDialog } from '../../components/FormDialog';
import { TextField } from '../../components/TextField';
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
      <TextField label="Name" problem={problems.name} value={name} required autoFocus onChange={setName} />
      <TextField
        label="Description"
        problem={problems.description}
        multiline
        rows={2}
        value={description}
        onChange={setDescription}
      />
    </FormDialog>
  );
}
