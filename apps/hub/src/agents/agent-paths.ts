/**
 * Paths are canonicalized by the hub before an agent sees them (ARCHITECTURE.md security rule 2): absolute,
 * POSIX, no NUL, no `..` segment, `.` and repeated slashes removed. The canonical path is what is audited and
 * what the agent acts on. A `..` is refused rather than resolved: a caller who means /etc says /etc.
 */
import path from 'node:path';
import { agentLimits } from '@svc/protocol';
import { validationError } from '../platform/hub-error.js';

export type PathCheck = { ok: true; path: string } | { ok: false; problem: string };

export function canonicalPath(text: string): PathCheck {
  if (text.length === 0) return { ok: false, problem: 'must not be empty' };
  if (text.includes('\u0000')) return { ok: false, problem: 'must not contain the NUL character' };
  if (Buffer.byteLength(text, 'utf8') > agentLimits.pathLength) {
    return { ok: false, problem: `must be at most ${agentLimits.pathLength} bytes` };
  }
  if (!text.startsWith('/')) return { ok: false, problem: 'must be an absolute path (start with /)' };
  if (text.split('/').includes('..')) return { ok: false, problem: "must not contain '..' segments" };
  let normalized = path.posix.normalize(text);
  if (normalized.length > 1 && normalized.endsWith('/')) normalized = normalized.slice(0, -1);
  return { ok: true, path: normalized };
}

/** The canonical path, or a 400 naming the field. */
export function requirePath(field: string, text: string): string {
  const check = canonicalPath(text);
  if (!check.ok) throw validationError(field, check.problem);
  return check.path;
}
