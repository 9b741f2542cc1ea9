/** Create a group, or rename one and change its description; the hub's refusal under the field it names. */
import { useState } from 'react';
import type { Group } from '@svc/protocol';
import { hub } from '../../api/client';
import { FormDialog } from '../../components/FormDialog';
import { TextField } from '../../components/TextField';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { useT } from '../../i18n/I18nProvider';

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
  const { t } = useT();
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
      title={group ? t('common.editNamed', { name: group.name }) : t('groups.new')}
      mutation={save}
      onSubmit={() => {
        save.mutate();
      }}
      onClose={onClose}
      submitLabel={group ? t('common.save') : t('groups.create')}
    >
      <TextField
        label={t('groups.name')}
        problem={problems.name}
        value={name}
        required
        autoFocus
        onChange={setName}
      />
      <TextField
        label={t('groups.description')}
        problem={problems.description}
        multiline
        rows={2}
        value={description}
        onChange={setDescription}
      />
    </FormDialog>
  );
}
