/**
 * The settings that take effect at the next start (marked restart-required in protocol's settings catalog):
 * read here, once, when the hub starts. A value set through the API overrides the parsed configuration.
 */
import type { HubConfig, RateLimitConfig } from '../config/env.js';
import type { RuntimeSettings } from '../modules/settings/settings.module.js';

export interface RestartSettings {
  metricsRetentionDays: number;
  rateLimit: RateLimitConfig;
}

export function readRestartSettings(
  runtimeSettings: RuntimeSettings,
  config: Pick<HubConfig, 'metricsRetentionDays' | 'rateLimit'>,
): RestartSettings {
  return {
    metricsRetentionDays: runtimeSettings.apiValue('retention.metrics_days') ?? config.metricsRetentionDays,
    rateLimit: {
      ...config.rateLimit,
      perIpPerMinute:
        runtimeSettings.apiValue('rate_limit.per_ip_per_minute') ?? config.rateLimit.perIpPerMinute,
      perKeyPerMinute:
        runtimeSettings.apiValue('rate_limit.per_key_per_minute') ?? config.rateLimit.perKeyPerMinute,
    },
  };
}
