/** The asset's Terminal tab: opens an interactive session on the asset and goes to its terminal page. */
import { useMutation } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { hub } from '../../../api/client';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { useT } from '../../../i18n/I18nProvider';
import type { AssetTabProps } from '../asset-tabs';

export function TerminalTab({ asset }: AssetTabProps) {
  const { t, rich } = useT();
  const navigate = useNavigate();
  const open = useMutation({
    mutationFn: async () =>
      (
        await hub.call('sessions.create', {
          params: { id: asset.id },
          body: { kind: 'terminal', cols: 120, rows: 32 },
        })
      ).data,
    onSuccess: (session) => {
      void navigate(`/sessions/${encodeURIComponent(session.id)}`);
    },
  });
  return (
    <div>
      <p>{rich('assetTabs.terminalText', { name: <span translate="no">{asset.name}</span> })}</p>
      <button
        type="button"
        onClick={() => {
          open.mutate();
        }}
        disabled={open.isPending}
      >
        {t('assetTabs.openTerminal')}
      </button>
      {open.isError && <ErrorNotice error={open.error} />}
    </div>
  );
}
