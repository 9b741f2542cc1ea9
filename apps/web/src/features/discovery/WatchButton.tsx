/**
 * A discovery suggestion made a service check in one click (`POST /check-suggestions`): a listening port
 * becomes a `tcp` check of its address, a container one of its first published port, a LAN host a `ping`.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { DiscoverySuggestion, ServiceCheck } from '@svc/protocol';
import { hub } from '../../api/client';
import { useT } from '../../i18n/I18nProvider';

export function WatchButton({
  suggestion,
  onMade,
  onFailed,
}: {
  suggestion: DiscoverySuggestion;
  onMade: (check: ServiceCheck) => void;
  onFailed: (error: unknown) => void;
}) {
  const { t } = useT();
  const client = useQueryClient();
  const watch = useMutation({
    mutationFn: async () =>
      (await hub.call('checks.from_suggestion', { body: { suggestion_id: suggestion.id } })).data,
    onSuccess: async (check) => {
      onMade(check);
      await client.invalidateQueries({ queryKey: ['checks'] });
    },
    onError: onFailed,
  });
  return (
    <button
      type="button"
      className="small"
      aria-label={t('discovery.watchNamed', { title: suggestion.title })}
      disabled={watch.isPending}
      onClick={() => {
        watch.mutate();
      }}
    >
      {t('discovery.watch')}
    </button>
  );
}
