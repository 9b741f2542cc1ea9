import type { SelectQueryBuilder } from 'kysely';
import { paginationLimits, type PageMeta } from '@svc/protocol';

export interface PageRequest {
  page: number;
  perPage: number;
}

export interface Page<T> {
  items: T[];
  meta: PageMeta;
  /**
   * `"data":[…],"meta":{…}` already serialized, for a page a cache serves many times: the route sends it as is
   * (with the request's own id) instead of serializing the same items again.
   */
  serialized?: string;
}

export function pageRequest(query: {
  page?: number | undefined;
  per_page?: number | undefined;
}): PageRequest {
  return { page: query.page ?? 1, perPage: query.per_page ?? paginationLimits.defaultPerPage };
}

/** A slice of a sorted list: what repositories take. */
export interface Window {
  limit: number;
  offset: number;
}

export function pageWindow(request: PageRequest): Window {
  return { limit: request.perPage, offset: (request.page - 1) * request.perPage };
}

/**
 * One page of a filtered, selected and ordered query, and the count of every row it matches. The count runs
 * the same query without its selection and order (PostgreSQL refuses an ORDER BY beside a bare count(*)), so
 * the page and the total can never disagree on the filter.
 */
export async function listPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  window: Window,
): Promise<{ rows: Awaited<ReturnType<typeof query.execute>>; total: number }> {
  const rows = await query.limit(window.limit).offset(window.offset).execute();
  const count = await query
    .clearSelect()
    .clearOrderBy()
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    // Kysely cannot name the selection while the table is generic; the column is the one selected above.
    .$castTo<{ n: string | number }>()
    .executeTakeFirstOrThrow();
  return { rows, total: Number(count.n) };
}

export function toPage<T>(items: T[], total: number, request: PageRequest): Page<T> {
  return { items, meta: { total, page: request.page, per_page: request.perPage } };
}

/** Lists are stored as JSON text; a damaged value reads as empty rather than failing the request. */
export function readStringList(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/** Escapes LIKE wildcards so user text matches literally (used with `escape '\'`). */
export function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
