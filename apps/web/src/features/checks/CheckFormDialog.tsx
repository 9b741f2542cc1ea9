/** Create a service check, or edit one; the hub's refusal under the field it names. */
import { useState } from 'react';
import { checkKinds, type CheckKind, type ServiceCheck } from '@svc/protocol';
import { hub } from '../../api/client';
import { FormDialog } from '../../components/FormDialog';
import { FormField } from '../../components/FormField';
import { TextField } from '../../components/TextField';
import { useResourceMutation } from '../../components/use-resource-mutation';
import type { PickedAsset } from '../../components/AssetPicker';
import { useAssetName } from '../../components/use-asset-name';
import { useT } from '../../i18n/I18nProvider';
import { RunFromField } from './RunFrom';

export const checksKey = ['checks'] as const;

/** `200, 204` → [200, 204]; empty → null (any 2xx or 3xx). Left to the hub to refuse what is not a code. */
function parseStatuses(text: string): number[] | null {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  return parts.length === 0 ? null : parts.map(Number);
}

export function CheckFormDialog({
  check,
  assetId,
  onClose,
}: {
  /** The check to edit; null creates one. */
  check: ServiceCheck | null;
  /** The asset a new check is about (from the asset's page). */
  assetId?: string;
  onClose: () => void;
}) {
  const { t } = useT();
  const [name, setName] = useState(check?.name ?? '');
  const [kind, setKind] = useState<CheckKind>(check?.kind ?? 'http');
  const [target, setTarget] = useState(check?.target ?? '');
  const [interval, setIntervalText] = useState(String(check?.interval_seconds ?? 60));
  const [timeout, setTimeoutText] = useState(String(check?.timeout_seconds ?? 10));
  const [statuses, setStatuses] = useState(check?.expected_status?.join(', ') ?? '');
  const [body, setBody] = useState(check?.expected_body ?? '');
  const [tlsVerify, setTlsVerify] = useState(check?.tls_verify ?? true);
  const [enabled, setEnabled] = useState(check?.enabled ?? true);
  const initialFrom = check?.run_from_asset_id ?? null;
  const initialName = useAssetName(initialFrom);
  const [runFromMode, setRunFromMode] = useState<'hub' | 'agent'>(initialFrom === null ? 'hub' : 'agent');
  // Undefined until the caller picks or clears one: then the agent the check runs from now, if any.
  const [pickedAgent, setPickedAgent] = useState<PickedAsset | null | undefined>(undefined);
  const chosenAgent =
    pickedAgent !== undefined
      ? pickedAgent
      : initialFrom !== null
        ? { id: initialFrom, name: initialName ?? initialFrom }
        : null;
  const save = useResourceMutation({
    mutationFn: async () => {
      if (runFromMode === 'agent' && chosenAgent === null) {
        throw new Error(t('checks.chooseAgent'));
      }
      const common = {
        name: name.trim(),
        target: target.trim(),
        interval_seconds: Number(interval),
        timeout_seconds: Number(timeout),
        enabled,
        run_from_asset_id: runFromMode === 'agent' ? (chosenAgent?.id ?? null) : null,
        ...(kind === 'http'
          ? {
              expected_status: parseStatuses(statuses),
              expected_body: body.trim() === '' ? null : body,
              tls_verify: tlsVerify,
            }
          : {}),
      };
      return check
        ? (await hub.call('checks.update', { params: { id: check.id }, body: common })).data
        : (
            await hub.call('checks.create', {
              body: { ...common, kind, ...(assetId !== undefined ? { asset_id: assetId } : {}) },
            })
          ).data;
    },
    invalidates: [checksKey],
    onSuccess: onClose,
  });
  const { problems } = save;
  return (
    <FormDialog
      title={check ? t('common.editNamed', { name: check.name }) : t('checks.newTitle')}
      mutation={save}
      onSubmit={() => {
        save.mutate();
      }}
      onClose={onClose}
      submitLabel={check ? t('common.save') : t('checks.create')}
    >
      <TextField
        id="check-name"
        label={t('checks.name')}
        problem={problems.name}
        value={name}
        required
        autoFocus
        onChange={setName}
      />
      <FormField id="check-kind" label={t('checks.kind')} problem={problems.kind}>
        {(control) => (
          <select
            {...control}
            value={kind}
            disabled={check !== null}
            onChange={(e) => {
              setKind(e.target.value as CheckKind);
            }}
          >
            {checkKinds.map((k) => (
              <option key={k} value={k}>
                {t('checks.kindLabel', { kind: k })}
              </option>
            ))}
          </select>
        )}
      </FormField>
      <TextField
        id="check-target"
        label={t('checks.target')}
        problem={problems.target}
        value={target}
        required
        placeholder={t('checks.targetHint', { kind })}
        onChange={setTarget}
      />
      <RunFromField
        mode={runFromMode}
        picked={chosenAgent}
        problem={problems.run_from_asset_id}
        onMode={setRunFromMode}
        onPick={setPickedAgent}
      />
      <TextField
        id="check-interval"
        label={t('checks.interval')}
        problem={problems.interval_seconds}
        type="number"
        inputMode="numeric"
        value={interval}
        onChange={setIntervalText}
      />
      <TextField
        id="check-timeout"
        label={t('checks.timeout')}
        problem={problems.timeout_seconds}
        type="number"
        inputMode="numeric"
        value={timeout}
        onChange={setTimeoutText}
      />
      {kind === 'http' && (
        <>
          <TextField
            id="check-statuses"
            label={t('checks.statuses')}
            hint={t('checks.statusesHint')}
            problem={problems.expected_status}
            value={statuses}
            placeholder={t('checks.statusesPlaceholder')}
            onChange={setStatuses}
          />
          <TextField
            id="check-body"
            label={t('checks.body')}
            problem={problems.expected_body}
            value={body}
            onChange={setBody}
          />
          <label className="check">
            <input
              type="checkbox"
              checked={tlsVerify}
              onChange={(e) => {
                setTlsVerify(e.target.checked);
              }}
            />
            {t('checks.tlsVerify')}
          </label>
        </>
      )}
      <label className="check">
        <input
          type="checkbox"
          checked={enabled}
          onChange={(e) => {
            setEnabled(e.target.checked);
          }}
        />
        {t('checks.enabled')}
      </label>
    </FormDialog>
  );
}
