/**
 * Runtime settings through the admin API: read with effective value and source, changed one domain at a time.
 * A change is validated per key, stored and audited in one transaction, then applied to the in-memory
 * settings and published as `settings.changed` once committed.
 */
import {
  settingDefinitions,
  settingKeys,
  type Setting,
  type SettingDefinition,
  type SettingDomain,
  type SettingKey,
  type SettingsPatch,
  type SettingsUpdated,
  type SettingsView,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import type { Clock } from '../../platform/clock.js';
import { validationError } from '../../platform/hub-error.js';
import { isValidSettingValue } from '../../config/settings.js';
import type { ActionContext } from '../../access/principal.js';
import type { AuditService } from '../audit/audit.service.js';
import type { RuntimeSettings } from './runtime-settings.js';
import type { CacheInvalidation } from '../../platform/cluster/invalidation.js';
import { deleteSetting, writeSetting } from '../../platform/db/key-values.js';

/** The invalidation topic of runtime settings: the other processes read the settings table again. */
export const settingsCacheTopic = 'settings';

export interface SettingsService {
  list(domain?: SettingDomain): SettingsView;
  update(ctx: ActionContext, domain: SettingDomain, patch: SettingsPatch): Promise<SettingsUpdated>;
}

function isSettingKey(key: string): key is SettingKey {
  return Object.hasOwn(settingDefinitions, key);
}

export function createSettingsService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  runtime: RuntimeSettings;
  /** Tells the other hub processes to reload the settings (decision 0040). */
  invalidation?: Pick<CacheInvalidation, 'invalidate'>;
}): SettingsService {
  const { db, clock, audit, events, runtime } = deps;

  function present(domain?: SettingDomain): Setting[] {
    const resolved = runtime.resolved();
    return settingKeys
      .filter((key) => domain === undefined || settingDefinitions[key].domain === domain)
      .map((key) => {
        const definition: SettingDefinition = settingDefinitions[key];
        return {
          key,
          domain: definition.domain,
          value: resolved[key].value,
          source: resolved[key].source,
          default: definition.default,
          env_var: definition.env ?? null,
          restart_required: definition.restartRequired,
          pending_restart: runtime.isPendingRestart(key),
          description: definition.description,
        };
      });
  }

  /** Every key checked before anything is written: one bad key refuses the whole change. */
  function validate(domain: SettingDomain, patch: SettingsPatch): Map<SettingKey, unknown> {
    const changes = new Map<SettingKey, unknown>();
    for (const [key, value] of Object.entries(patch)) {
      if (!isSettingKey(key)) throw validationError(key, 'is not a runtime setting');
      const definition = settingDefinitions[key];
      if (definition.domain !== domain) {
        throw validationError(key, `belongs to the ${definition.domain} domain; change one domain at a time`);
      }
      if (value !== null && !isValidSettingValue(key, value, settingDefinitions)) {
        throw validationError(key, `must be ${definition.allowed} (or null to clear)`);
      }
      changes.set(key, value);
    }
    return changes;
  }

  async function update(
    ctx: ActionContext,
    domain: SettingDomain,
    patch: SettingsPatch,
  ): Promise<SettingsUpdated> {
    const requested = validate(domain, patch);
    const before = runtime.resolved();
    const changed: Partial<Record<SettingKey, unknown>> = {};
    const detail: Record<string, { from: unknown; to: unknown }> = {};
    for (const [key, value] of requested) {
      const wasApi = before[key].source === 'api';
      if (value === null ? !wasApi : wasApi && before[key].value === value) continue;
      changed[key] = value;
      detail[key] = { from: wasApi ? before[key].value : null, to: value };
    }
    const changedKeys = Object.keys(changed) as SettingKey[];
    if (changedKeys.length > 0) {
      await db.transaction().execute(async (trx) => {
        for (const key of changedKeys) {
          const value = changed[key];
          if (value === null) await deleteSetting(trx, key);
          else await writeSetting(trx, key, value, clock.now());
        }
        await audit.record(trx, ctx, {
          action: 'settings.changed',
          targetType: 'settings',
          targetId: domain,
          detail: { domain, changes: detail },
        });
      });
      runtime.applyStored(changed);
      deps.invalidation?.invalidate(settingsCacheTopic, domain);
      events.publish('settings.changed', { asset_ids: [], domain, keys: changedKeys });
    }
    return {
      settings: present(domain),
      changed: changedKeys,
      restart_required: changedKeys.filter((key) => settingDefinitions[key].restartRequired),
    };
  }

  // Changes run one after another: each compares against the values the previous one left, so the audit's
  // "from" and the in-memory values follow the order the table saw.
  let previous: Promise<unknown> = Promise.resolve();
  return {
    list: (domain) => ({ settings: present(domain) }),
    update(ctx, domain, patch) {
      const run = previous.then(() => update(ctx, domain, patch));
      previous = run.catch(() => undefined);
      return run;
    },
  };
}
