import { useQuery } from '@tanstack/react-query';
import { hub } from '../../api/client';

export const prometheusKey = ['prometheus'] as const;

/** The Prometheus integration's settings and the remote-write status (admins), refreshed while shown. */
export function usePrometheusSettings() {
  return useQuery({
    queryKey: prometheusKey,
    queryFn: async () => (await hub.call('prometheus.settings', {})).data,
    refetchInterval: 10_000,
  });
}
