/**
 * Home Assistant REST answers as the hub reads them (../shared/design/upstreams.md §5): a state's `state` is
 * always text; attributes are free-form (some big: forecasts, pictures) and only a few are read.
 */
import { Type, type Static } from 'typebox';

export const HomeAssistantState = Type.Object({
  entity_id: Type.String({ minLength: 3, maxLength: 255 }),
  state: Type.String(),
  attributes: Type.Record(Type.String(), Type.Unknown()),
  last_changed: Type.String(),
  last_updated: Type.Optional(Type.String()),
});
export type HomeAssistantState = Static<typeof HomeAssistantState>;
export const HomeAssistantStates = Type.Array(HomeAssistantState);

/** `GET /api/` */
export const HomeAssistantApiStatus = Type.Object({ message: Type.String() });

/** `GET /api/config`: only the instance's name is read. */
export const HomeAssistantConfig = Type.Object({
  location_name: Type.Optional(Type.String()),
  version: Type.Optional(Type.String()),
});
