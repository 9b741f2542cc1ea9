/**
 * Where a form shows the hub's refusal: a 400 `validation` names fields in its `details` (shown under each),
 * anything else is one message (shown above the buttons).
 */
import { SvcApiError } from '@svc/sdk/client';

export type FieldProblems = Readonly<Record<string, string>>;

/** The field of the form a problem's path names: `body.ip_addresses.0` → `ip_addresses`. */
export function formFieldOf(path: string): string {
  return path.replace(/^body\./, '').split('.')[0] ?? path;
}

/** The field problems of a validation error, by top-level field of the body; the first problem of each. */
export function fieldProblems(error: unknown): FieldProblems {
  if (!(error instanceof SvcApiError)) return {};
  const out: Record<string, string> = {};
  for (const { field, problem } of error.details) out[formFieldOf(field)] ??= problem;
  return out;
}

/** Whether the error needs its own notice: it failed and names no field the form could show it under. */
export function hasUnplacedProblem(error: unknown): boolean {
  if (error === null || error === undefined) return false;
  return Object.keys(fieldProblems(error)).length === 0;
}
