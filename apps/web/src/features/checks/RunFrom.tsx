/**
 * Where a check runs (decision 0084): the hub, through its egress guard, or a chosen asset's agent on its own
 * network. The picker offers the assets the hub lists to this session, so only visible ones.
 */
import { useAssetName } from '../../components/use-asset-name';
import { AssetPicker, type PickedAsset } from '../../components/AssetPicker';
import { useT } from '../../i18n/I18nProvider';

/** "the hub" or "agent of <asset>", as the Checks list shows it. */
export function RunFromName({ assetId }: { assetId: string | null }) {
  const { t } = useT();
  const name = useAssetName(assetId);
  return name === null ? (
    <span className="muted">{t('checks.theHub')}</span>
  ) : (
    <span>{t('checks.agentOf', { name })}</span>
  );
}

export function RunFromField({
  mode,
  picked,
  problem,
  onMode,
  onPick,
}: {
  mode: 'hub' | 'agent';
  picked: PickedAsset | null;
  problem: string | undefined;
  onMode: (mode: 'hub' | 'agent') => void;
  onPick: (asset: PickedAsset | null) => void;
}) {
  const { t } = useT();
  return (
    <>
      <fieldset className="target-mode">
        <legend>{t('checks.runFrom')}</legend>
        <label className="checkbox">
          <input
            type="radio"
            name="check-run-from"
            checked={mode === 'hub'}
            onChange={() => {
              onMode('hub');
            }}
          />
          {t('checks.fromHub')}
        </label>
        <label className="checkbox">
          <input
            type="radio"
            name="check-run-from"
            checked={mode === 'agent'}
            onChange={() => {
              onMode('agent');
            }}
          />
          {t('checks.fromAgent')}
        </label>
      </fieldset>
      {mode === 'agent' && (
        <div className="field">
          {picked !== null ? (
            <ul className="chips" aria-label={t('checks.agentChosen')}>
              <li className="chip">
                <span translate="no">{picked.name}</span>
                <button
                  type="button"
                  className="chip-remove"
                  aria-label={t('checks.otherAgent', { name: picked.name })}
                  onClick={() => {
                    onPick(null);
                  }}
                >
                  <span translate="no">×</span>
                </button>
              </li>
            </ul>
          ) : (
            <AssetPicker
              label={t('checks.agentAsset')}
              picked={new Set()}
              onPick={(asset) => {
                onPick(asset);
              }}
            />
          )}
          {problem !== undefined && (
            <span className="field-error" id="check-run-from-problem">
              {problem}
            </span>
          )}
        </div>
      )}
    </>
  );
}
