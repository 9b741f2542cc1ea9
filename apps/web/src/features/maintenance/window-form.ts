/**
 * The maintenance window form's state and what it sends: a create with all of it, an edit with only what
 * changed (the hub merges an update over the stored window, so an untouched field keeps its value). Switching
 * kind sends the whole timing of the new kind, as the hub asks.
 */
import type { MaintenanceWindow, MaintenanceWindowCreate, MaintenanceWindowUpdate } from '@svc/protocol';
import { fromLocalInput, toLocalInput } from '../keys/expiry';
import { noTargets, type TargetChoice } from '../../components/target-choice';

export interface WindowForm {
  name: string;
  reason: string;
  kind: 'one_off' | 'recurring';
  /** `datetime-local` text, the reader's time. */
  start: string;
  end: string;
  cron: string;
  /** The duration field's text. */
  duration: string;
  timezone: string;
  targets: TargetChoice;
}

/** The form as it opens: empty for a new window, the window's own values for an edit. */
export function windowForm(window: MaintenanceWindow | null, browserZone: string): WindowForm {
  if (!window) {
    return {
      name: '',
      reason: '',
      kind: 'one_off',
      start: '',
      end: '',
      cron: '0 2 * * 0',
      duration: '120',
      timezone: browserZone,
      targets: noTargets,
    };
  }
  const byGroup = window.asset_ids.length === 0 && window.group_ids.length > 0;
  return {
    name: window.name,
    reason: window.reason,
    kind: window.kind,
    start: toLocalInput(window.starts_at),
    end: toLocalInput(window.ends_at),
    cron: window.cron ?? '0 2 * * 0',
    duration: String(window.duration_minutes ?? 120),
    timezone: window.timezone,
    targets: byGroup
      ? { mode: 'group', picked: [], groupId: window.group_ids[0] ?? '' }
      : { mode: 'assets', picked: window.asset_ids.map((id) => ({ id, name: id })), groupId: '' },
  };
}

/** A window covering more than the picker shows (assets and groups, or several groups). */
export function coversMoreThanPicker(window: MaintenanceWindow): boolean {
  return (window.asset_ids.length > 0 && window.group_ids.length > 0) || window.group_ids.length > 1;
}

/** One-off times both readable, when the form is one-off. */
export function timingReady(form: WindowForm): boolean {
  return (
    form.kind === 'recurring' || (fromLocalInput(form.start) !== null && fromLocalInput(form.end) !== null)
  );
}

function targetsOf(choice: TargetChoice): { asset_ids: string[]; group_ids: string[] } {
  return choice.mode === 'assets'
    ? { asset_ids: choice.picked.map((p) => p.id), group_ids: [] }
    : { asset_ids: [], group_ids: choice.groupId ? [choice.groupId] : [] };
}

function oneOffTiming(form: WindowForm): { starts_at?: string; ends_at?: string } {
  const startsAt = fromLocalInput(form.start);
  const endsAt = fromLocalInput(form.end);
  return { ...(startsAt ? { starts_at: startsAt } : {}), ...(endsAt ? { ends_at: endsAt } : {}) };
}

function recurringTiming(form: WindowForm) {
  return { cron: form.cron.trim(), duration_minutes: Number(form.duration), timezone: form.timezone.trim() };
}

export function createBody(form: WindowForm): MaintenanceWindowCreate {
  const where = targetsOf(form.targets);
  return {
    name: form.name.trim(),
    reason: form.reason.trim(),
    ...(form.targets.mode === 'assets' ? { asset_ids: where.asset_ids } : { group_ids: where.group_ids }),
    ...(form.kind === 'one_off' ? oneOffTiming(form) : recurringTiming(form)),
  };
}

/** What changed of the timing: all of the new kind's on a switch, else the fields edited. */
function timingChanges(window: MaintenanceWindow, form: WindowForm): MaintenanceWindowUpdate {
  const before = windowForm(window, window.timezone);
  if (form.kind !== window.kind) {
    return form.kind === 'one_off' ? oneOffTiming(form) : recurringTiming(form);
  }
  if (form.kind === 'one_off') {
    return form.start !== before.start || form.end !== before.end ? oneOffTiming(form) : {};
  }
  const next = recurringTiming(form);
  return {
    ...(next.cron !== window.cron ? { cron: next.cron } : {}),
    ...(next.duration_minutes !== window.duration_minutes ? { duration_minutes: next.duration_minutes } : {}),
    ...(next.timezone !== window.timezone ? { timezone: next.timezone } : {}),
  };
}

/**
 * The edit's body: the fields that differ from the window, the targets only once touched (then both lists,
 * replacing what the window covered). Empty when nothing changed.
 */
export function updateBody(
  window: MaintenanceWindow,
  form: WindowForm,
  targetsTouched: boolean,
): MaintenanceWindowUpdate {
  const name = form.name.trim();
  const reason = form.reason.trim();
  return {
    ...(name !== window.name ? { name } : {}),
    ...(reason !== window.reason ? { reason } : {}),
    ...(targetsTouched ? targetsOf(form.targets) : {}),
    ...timingChanges(window, form),
  };
}
