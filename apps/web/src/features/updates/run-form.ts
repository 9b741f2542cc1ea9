/**
 * The update run form's state and the request it makes (`POST /update-runs`): targets or a group, dry run or
 * apply, what to upgrade, how many at once, when. Pure, so unit-tested; the hub checks every field again.
 */
import {
  updateRunLimits,
  type UpdateRunCreate,
  type UpdateRunMode,
  type UpdateRunStart,
  type UpdateSelection,
} from '@svc/protocol';
import { fromLocalInput } from '../keys/expiry';
import { noTargets, targetBody, targetsChosen, type TargetChoice } from '../../components/target-choice';

export interface RunForm {
  targets: TargetChoice;
  mode: UpdateRunMode;
  selection: UpdateSelection;
  /** Package names as typed: separated by spaces, commas or lines. */
  packages: string;
  reboot: boolean;
  refresh: boolean;
  /** Number fields' text; `maxFailures` empty for no limit. */
  concurrency: string;
  maxFailures: string;
  timeout: string;
  start: UpdateRunStart;
  /** `datetime-local` text for `start: at`. */
  at: string;
}

export const emptyRunForm: RunForm = {
  targets: noTargets,
  mode: 'dry_run',
  selection: 'all',
  packages: '',
  reboot: false,
  refresh: true,
  concurrency: String(updateRunLimits.defaultConcurrency),
  maxFailures: '',
  timeout: String(updateRunLimits.defaultTimeoutMinutes),
  start: 'now',
  at: '',
};

/** The names typed, once each, in the order typed. */
export function packageNames(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter((name) => name !== ''))];
}

/** A number field's value; text that is no number is sent as it reads, for the hub to name. */
function numberOf(text: string): number {
  return Number(text.trim());
}

export function runBody(form: RunForm): UpdateRunCreate {
  const apply = form.mode === 'apply';
  const scheduledAt = form.start === 'at' ? fromLocalInput(form.at) : null;
  return {
    ...targetBody(form.targets),
    mode: form.mode,
    selection: form.selection,
    ...(form.selection === 'named' ? { packages: packageNames(form.packages) } : {}),
    ...(apply ? { reboot_if_required: form.reboot, timeout_minutes: numberOf(form.timeout) } : {}),
    refresh: form.refresh,
    concurrency: numberOf(form.concurrency),
    ...(form.maxFailures.trim() !== '' ? { max_failures: numberOf(form.maxFailures) } : {}),
    start: form.start,
    ...(scheduledAt ? { scheduled_at: scheduledAt } : {}),
  };
}

/** What still holds the submit button: targets, a name for `named`, a time for `at`. */
export function runFormReady(form: RunForm): boolean {
  return (
    targetsChosen(form.targets) &&
    (form.selection !== 'named' || packageNames(form.packages).length > 0) &&
    (form.start !== 'at' || fromLocalInput(form.at) !== null)
  );
}
