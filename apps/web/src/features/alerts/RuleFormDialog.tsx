/** Create an alert rule, or change one; the hub's refusal under the field it names. */
import { useState, type SyntheticEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  alertRuleKinds,
  alertSeverities,
  type AlertRule,
  type AlertRuleKind,
  type AlertSeverity,
} from '@svc/protocol';
import { hub } from '../../api/client';
import { fieldProblems } from '../../components/form-problems';
import { AssetPicker } from '../../components/AssetPicker';
import { Dialog } from '../../components/Dialog';
import { ErrorNotice } from '../../components/ErrorNotice';

const kindLabels: Record<AlertRuleKind, string> = {
  offline: 'Asset offline',
  cpu: 'CPU above a threshold',
  memory: 'Memory above a threshold',
  disk: 'Disk above a threshold',
  service: 'Service not active',
};

const hasThreshold = (kind: AlertRuleKind) => kind === 'cpu' || kind === 'memory' || kind === 'disk';

function Problem({ id, text }: { id: string; text: string | undefined }) {
  return text === undefined ? null : (
    <span className="field-error" id={id}>
      {text}
    </span>
  );
}

export function RuleFormDialog({ rule, onClose }: { rule: AlertRule | null; onClose: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState(rule?.name ?? '');
  const [kind, setKind] = useState<AlertRuleKind>(rule?.kind ?? 'offline');
  const [severity, setSeverity] = useState<AlertSeverity>(rule?.severity ?? 'warning');
  const [threshold, setThreshold] = useState(rule?.threshold_percent?.toString() ?? '90');
  const [service, setService] = useState(rule?.service ?? '');
  const [duration, setDuration] = useState(String(rule?.duration_minutes ?? 5));
  const [assetIds, setAssetIds] = useState<string[]>(rule?.asset_ids ?? []);
  const save = useMutation({
    mutationFn: async () => {
      const common = {
        name: name.trim(),
        severity,
        duration_minutes: Number(duration),
        asset_ids: assetIds,
        ...(hasThreshold(kind) ? { threshold_percent: Number(threshold) } : {}),
        ...(kind === 'service' ? { service: service.trim() } : {}),
      };
      return rule
        ? (await hub.call('alerts.ruleUpdate', { params: { id: rule.id }, body: common })).data
        : (await hub.call('alerts.ruleCreate', { body: { ...common, kind } })).data;
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['alerts'] });
      onClose();
    },
  });
  const problems = fieldProblems(save.error);
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Dialog open title={rule ? `Edit ${rule.name}` : 'New alert rule'} onClose={onClose}>
      <form className="asset-form" onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor="rule-name">Name</label>
          <input
            id="rule-name"
            value={name}
            required
            autoFocus
            aria-invalid={problems.name !== undefined}
            onChange={(e) => {
              setName(e.target.value);
            }}
          />
          <Problem id="rule-name-problem" text={problems.name} />
        </div>
        <div className="field">
          <label htmlFor="rule-kind">Condition</label>
          <select
            id="rule-kind"
            value={kind}
            disabled={rule !== null}
            onChange={(e) => {
              setKind(e.target.value as AlertRuleKind);
            }}
          >
            {alertRuleKinds.map((k) => (
              <option key={k} value={k}>
                {kindLabels[k]}
              </option>
            ))}
          </select>
        </div>
        {kind === 'service' && (
          <div className="field">
            <label htmlFor="rule-service">Service name</label>
            <input
              id="rule-service"
              value={service}
              placeholder="nginx.service"
              aria-invalid={problems.service !== undefined}
              onChange={(e) => {
                setService(e.target.value);
              }}
            />
            <Problem id="rule-service-problem" text={problems.service} />
          </div>
        )}
        {hasThreshold(kind) && (
          <div className="field">
            <label htmlFor="rule-threshold">Threshold (%)</label>
            <input
              id="rule-threshold"
              type="number"
              inputMode="decimal"
              value={threshold}
              aria-invalid={problems.threshold_percent !== undefined}
              onChange={(e) => {
                setThreshold(e.target.value);
              }}
            />
            <Problem id="rule-threshold-problem" text={problems.threshold_percent} />
          </div>
        )}
        <div className="field">
          <label htmlFor="rule-duration">For at least (minutes)</label>
          <input
            id="rule-duration"
            type="number"
            inputMode="numeric"
            value={duration}
            aria-invalid={problems.duration_minutes !== undefined}
            onChange={(e) => {
              setDuration(e.target.value);
            }}
          />
          <Problem id="rule-duration-problem" text={problems.duration_minutes} />
        </div>
        <div className="field">
          <label htmlFor="rule-severity">Severity</label>
          <select
            id="rule-severity"
            value={severity}
            onChange={(e) => {
              setSeverity(e.target.value as AlertSeverity);
            }}
          >
            {alertSeverities.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <span>Assets {assetIds.length === 0 && <span className="muted">(every asset)</span>}</span>
          {assetIds.length > 0 && (
            <ul className="chips" aria-label="Watched assets">
              {assetIds.map((id) => (
                <li key={id} className="chip">
                  {id}
                  <button
                    type="button"
                    className="chip-remove"
                    aria-label={`Remove ${id}`}
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
            label="Watch an asset"
            picked={new Set(assetIds)}
            onPick={(asset) => {
              setAssetIds([...assetIds, asset.id]);
            }}
          />
          <Problem id="rule-assets-problem" text={problems.asset_ids} />
        </div>
        {save.isError && <ErrorNotice error={save.error} />}
        <div className="dialog-actions">
          <button type="button" onClick={onClose} disabled={save.isPending}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : rule ? 'Save' : 'Create rule'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
