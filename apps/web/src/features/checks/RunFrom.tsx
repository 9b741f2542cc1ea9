/**
 * Where a check runs (decision 0084): the hub, through its egress guard, or a chosen asset's agent on its own
 * network. The picker offers the assets the hub lists to this session, so only visible ones.
 */
import { useAssetName } from '../../components/use-asset-name';
import { AssetPicker, type PickedAsset } from '../../components/AssetPicker';

/** "the hub" or "agent of <asset>", as the Checks list shows it. */
export function RunFromName({ assetId }: { assetId: string | null }) {
  const name = useAssetName(assetId);
  return name === null ? <span className="muted">the hub</span> : <span>agent of {name}</span>;
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
  return (
    <>
      <fieldset className="target-mode">
        <legend>Run from</legend>
        <label className="checkbox">
          <input
            type="radio"
            name="check-run-from"
            checked={mode === 'hub'}
            onChange={() => {
              onMode('hub');
            }}
          />
          The hub (through its egress guard)
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
          An agent, on its own network
        </label>
      </fieldset>
      {mode === 'agent' && (
        <div className="field">
          {picked !== null ? (
            <ul className="chips" aria-label="Agent that runs the check">
              <li className="chip">
                {picked.name}
                <button
                  type="button"
                  className="chip-remove"
                  aria-label={`Choose another agent than ${picked.name}`}
                  onClick={() => {
                    onPick(null);
                  }}
                >
                  ×
                </button>
              </li>
            </ul>
          ) : (
            <AssetPicker
              label="Agent's asset"
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
