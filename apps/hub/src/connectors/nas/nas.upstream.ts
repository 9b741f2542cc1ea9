/**
 * TrueNAS answers as the hub reads them (../shared/design/upstreams.md §2; api.truenas.com `pool.query`,
 * `pool.dataset.query`). The same records come over JSON-RPC and over REST v2.0. Only the fields the hub
 * reads are described; the rest is ignored.
 */
import { Type, type Static, type TSchema } from 'typebox';

const Maybe = <T extends TSchema>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

/** A ZFS property: `parsed` is bytes as a number for sizes; `value` is text for people (`1.2T`). */
const ZfsProperty = Type.Object({
  parsed: Maybe(Type.Unknown()),
  rawvalue: Maybe(Type.String()),
  value: Maybe(Type.String()),
});

export const TruenasPool = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  status: Type.String(),
  healthy: Type.Boolean(),
  status_detail: Maybe(Type.String()),
  /** Null for a pool that is not imported or not available. */
  size: Maybe(Type.Number()),
  allocated: Maybe(Type.Number()),
  free: Maybe(Type.Number()),
  scan: Maybe(
    Type.Object({
      function: Maybe(Type.String()),
      state: Maybe(Type.String()),
      errors: Maybe(Type.Integer()),
    }),
  ),
});
export type TruenasPool = Static<typeof TruenasPool>;
export const TruenasPools = Type.Array(TruenasPool);

export const TruenasDataset = Type.Object({
  id: Type.String({ minLength: 1 }),
  type: Type.String(),
  pool: Type.String(),
  encrypted: Maybe(Type.Boolean()),
  locked: Maybe(Type.Boolean()),
  mountpoint: Maybe(Type.String()),
  used: Maybe(ZfsProperty),
  available: Maybe(ZfsProperty),
});
export type TruenasDataset = Static<typeof TruenasDataset>;
export const TruenasDatasets = Type.Array(TruenasDataset);

/** `GET /api/versions` on 25.04 and later: `["v25.04.0", …]`. */
export const TruenasVersions = Type.Array(Type.String());

/** A JSON-RPC 2.0 answer: `result`, or `error` with TrueNAS's `data.reason`. */
export const JsonRpcAnswer = Type.Object({
  jsonrpc: Type.Literal('2.0'),
  id: Type.Union([Type.Integer(), Type.String(), Type.Null()]),
  result: Type.Optional(Type.Unknown()),
  error: Type.Optional(
    Type.Object({
      code: Type.Integer(),
      message: Type.String(),
      data: Maybe(
        Type.Object({
          errname: Maybe(Type.String()),
          reason: Maybe(Type.String()),
        }),
      ),
    }),
  ),
});
export type JsonRpcAnswer = Static<typeof JsonRpcAnswer>;

/** `auth.login_ex`: only SUCCESS lets the session in (OTP_REQUIRED, EXPIRED, AUTH_ERR, REDIRECT do not). */
export const TruenasLoginEx = Type.Object({ response_type: Type.String() });

/** `auth.login_with_api_key` (deprecated, removed in 27): true or false. */
export const TruenasLoginResult = Type.Boolean();
