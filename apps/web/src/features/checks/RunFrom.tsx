/**
 * Where a check runs (decision 0084): the hub, through its egress guard, or a chosen asset's agent on its own
 * network. The picker offers the assets the hub lists to this session, so only visible ones.
 */
import { useQuery } from '@tanstack/react-query';
import { hub } from '../../api/client';
import { AssetPicker, type PickedAsset } from '../../components/AssetPicker';

/** An asset's name for a check's `run_from_asset_id` (its id while loading, or when it is gone). */
export function useAssetName(assetId: string | null): string | null {
  const asset = useQuery({
    queryKey: ['assets', 'name', assetId],
    queryFn: async () => (await hub.call('assets.get', { params: { id: assetId ?? '' } })).data,
    enabled: assetId !== null,
    staleTime: 60_000,
    retry: false,
  });
  return assetId === null ? null : (asset.data?.name ?? assetId);
}

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
