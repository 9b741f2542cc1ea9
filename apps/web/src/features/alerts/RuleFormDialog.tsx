/** Create an alert rule, or change one; the hub's refusal under the field it names. */
import { useState } from 'react';
import {
  alertRuleKinds,
  alertSeverities,
  type AlertRule,
  type AlertRuleKind,
  type AlertSeverity,
} from '@svc/protocol';
import { hub } from '../../api/client';
import { AssetPicker } from '../../components/AssetPicker';
import { FormDialog } from '../../components/FormDialog';
import { FormField } from '../../components/FormField';
import { TextField } from '../../components/TextField';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { useT } from '../../i18n/I18nProvider';

const hasThreshold = (kind: AlertRuleKind) => kind === 'cpu' || kind === 'memory' || kind === 'disk';

export function RuleFormDialog({ rule, onClose }: { rule: AlertRule | null; onClose: () => void }) {
  const { t } = useT();
  const [name, setName] = useState(rule?.name ?? '');
  const [kind, setKind] = useState<AlertRuleKind>(rule?.kind ?? 'offline');
  const [severity, setSeverity] = useState<AlertSeverity>(rule?.severity ?? 'warning');
  const [threshold, setThreshold] = useState(rule?.threshold_percent?.toString() ?? '90');
  const [service, setService] = useState(rule?.service ?? '');
  const [duration, setDuration] = useState(String(rule?.duration_minutes ?? 5));
  const [failures, setFailures] = useState(String(rule?.failures ?? 3));
  const [assetIds, setAssetIds] = useState<string[]>(rule?.asset_ids ?? []);
  const save = useResourceMutation({
    mutationFn: async () => {
      const common = {
        name: name.trim(),
        severity,
        ...(kind === 'check' ? {} : { duration_minutes: Number(duration) }),
        asset_ids: assetIds,
        ...(hasThreshold(kind) ? { threshold_percent: Number(threshold) } : {}),
        ...(kind === 'service' ? { service: service.trim() } : {}),
        ...(kind === 'check' ? { failures: Number(failures) } : {}),
      };
      return rule
        ? (await hub.call('alerts.ruleUpdate', { params: { id: rule.id }, body: common })).data
        : (await hub.call('alerts.ruleCreate', { body: { ...common, kind } })).data;
    },
    invalidates: [['alerts']],
    onSuccess: onClose,
  });
  const { problems } = save;
  return (
    <FormDialog
      title={rule ? t('common.editNamed', { name: rule.name }) : t('ruleForm.newTitle')}
      mutation={save}
      onSubmit={() => {
        save.mutate();
      }}
      onClose={onClose}
      submitLabel={rule ? t('common.save') : t('ruleForm.create')}
    >
      <TextField
        id="rule-name"
        label={t('ruleForm.name')}
        problem={problems.name}
        value={name}
        required
        autoFocus
        onChange={setName}
      />
      <FormField id="rule-kind" label={t('ruleForm.condition')} problem={problems.kind}>
        {(control) => (
          <select
            {...control}
            value={kind}
            disabled={rule !== null}
            onChange={(e) => {
              setKind(e.target.value as AlertRuleKind);
            }}
          >
            {alertRuleKinds.map((k) => (
              <option key={k} value={k}>
                {t('ruleForm.kind', { kind: k })}
              </option>
            ))}
          </select>
        )}
      </FormField>
      {kind === 'service' && (
        <TextField
          id="rule-service"
          label={t('ruleForm.service')}
          problem={problems.service}
          value={service}
          placeholder={t('ruleForm.servicePlaceholder')}
          onChange={setService}
        />
      )}
      {hasThreshold(kind) && (
        <TextField
          id="rule-threshold"
          label={t('ruleForm.threshold')}
          problem={problems.threshold_percent}
          type="number"
          inputMode="decimal"
          value={threshold}
          onChange={setThreshold}
        />
      )}
      {kind === 'check' && (
        <TextField
          id="rule-failures"
          label={t('ruleForm.failures')}
          problem={problems.failures}
          type="number"
          inputMode="numeric"
          value={failures}
          onChange={setFailures}
        />
      )}
      {kind !== 'check' && (
        <TextField
          id="rule-duration"
          label={t('ruleForm.duration')}
          problem={problems.duration_minutes}
          type="number"
          inputMode="numeric"
          value={duration}
          onChange={setDuration}
        />
      )}
      <FormField id="rule-severity" label={t('ruleForm.severity')} problem={problems.severity}>
        {(control) => (
          <select
            {...control}
            value={severity}
            onChange={(e) => {
              setSeverity(e.target.value as AlertSeverity);
            }}
          >
            {alertSeverities.map((s) => (
              <option key={s} value={s}>
                {t('alert.severity', { severity: s })}
              </option>
            ))}
          </select>
        )}
      </FormField>
      <div className="field">
        <span>
          {t('ruleForm.assets')}{' '}
          {assetIds.length === 0 && <span className="muted">{t('ruleForm.everyAsset')}</span>}
        </span>
        {assetIds.length > 0 && (
          <ul className="chips" aria-label={t('ruleForm.watched')}>
            {assetIds.map((id) => (
              <li key={id} className="chip">
                <span translate="no">{id}</span>
                <button
                  type="button"
                  className="chip-remove"
                  aria-label={t('common.removeNamed', { name: id })}
                  onClick={() => {
                    setAssetIds(assetIds.filter((x) => x !== id));
                  }}
                >
                  ×
                </button>
              </li>
            ))}
          </ul>
        )}
        <AssetPicker
          label={t('ruleForm.watch')}
          picked={new Set(assetIds)}
          onPick={(asset) => {
            setAssetIds([...assetIds, asset.id]);
          }}
        />
        {problems.asset_ids !== undefined && (
          <span className="field-error" id="rule-assets-problem">
            {problems.asset_ids}
          </span>
        )}
      </div>
    </FormDialog>
  );
}
