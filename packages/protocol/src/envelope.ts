import { Type, type Static, type TSchema } from 'typebox';
import { errorCodes, type ErrorCode } from './errors.js';

export const RequestId = Type.String({ pattern: '^req_[0-9a-z]+$' });

export const PageMeta = Type.Object({
  total: Type.Integer({ minimum: 0 }),
  page: Type.Integer({ minimum: 1 }),
  per_page: Type.Integer({ minimum: 1 }),
});
export type PageMeta = Static<typeof PageMeta>;

export const FieldProblem = Type.Object({ field: Type.String(), problem: Type.String() });
export type FieldProblem = Static<typeof FieldProblem>;

export const ErrorEnvelope = Type.Object({
  request_id: Type.String(),
  error: Type.Enum<ErrorCode[]>(errorCodes),
  message: Type.String(),
  status: Type.Integer(),
  details: Type.Optional(Type.Array(FieldProblem)),
});
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;

export function SuccessEnvelope<T extends TSchema>(data: T) {
  return Type.Object({ request_id: Type.String(), data });
}

export function ListEnvelope<T extends TSchema>(item: T) {
  return Type.Object({ request_id: Type.String(), data: Type.Array(item), meta: PageMeta });
}

export const paginationLimits = { defaultPerPage: 50, maxPerPage: 500, maxPage: 1_000_000 } as const;

export const PaginationQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: paginationLimits.maxPage, default: 1 })),
  per_page: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: paginationLimits.maxPerPage,
      default: paginationLimits.defaultPerPage,
    }),
  ),
});
export type PaginationQuery = Static<typeof PaginationQuery>;
