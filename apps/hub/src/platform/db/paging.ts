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
