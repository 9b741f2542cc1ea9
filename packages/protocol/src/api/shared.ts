/** What several areas' contracts share: limits, names, ids in paths, pagination, the asset a route acts on. */
import { Type, type TObject, type TProperties, type TSchema } from 'typebox';
import { agentRequests, type AgentRequestType } from '../agent-messages.js';
import type { AssetRef } from '../contract.js';
import { DisplayName, DisplayText } from '../display-text.js';
import { PaginationQuery } from '../envelope.js';
import { idPatternFor } from '../ids.js';

export const limits = {
  nameLength: 120,
  descriptionLength: 2000,
  scopesPerKey: 64,
  allowedAssetsPerKey: 1000,
  assetsPerGroup: 10_000,
  tagsPerAsset: 32,
  tagLength: 64,
  ipAddressesPerAsset: 32,
  hostnameLength: 253,
  usernameLength: 64,
  passwordMinLength: 10,
  passwordMaxBytes: 72,
  searchQueryLength: 200,
  bodyBytes: 1_048_576,
} as const;

export const Timestamp = Type.String({ format: 'date-time' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
export const Maybe = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
export const literals = <const T extends readonly string[]>(values: readonly [...T]) =>
  Type.Enum<[...T]>(values);

export const Name = DisplayName(limits.nameLength);
export const Description = DisplayText(limits.descriptionLength);
export const AssetIdPattern = idPatternFor('asset');
export const AssetId = Type.String({ pattern: AssetIdPattern });

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

/** A list route's query: its own filters plus `page` and `per_page`. */
export const paged = <P extends TProperties>(extra: TObject<P>) =>
  Type.Object({ ...PaginationQuery.properties, ...extra.properties });

/** The REST answer of an operation is the agent's result, as the catalog defines it. */
// The type parameter and the written return type keep each route's result schema precise (handlers and the
// SDK are typed from it): inferred, `.result` on the generic entry widens to the union of every result.
export const agentResult = <T extends AgentRequestType>(type: T): (typeof agentRequests)[T]['result'] =>
  agentRequests[type].result;

export const assetParam: AssetRef = { param: 'id', form: 'asset' };
export const compoundParam: AssetRef = { param: 'id', form: 'compound' };
