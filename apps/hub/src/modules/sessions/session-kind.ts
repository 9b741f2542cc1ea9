/**
 * Terminal sessions as a kind of state owned by one hub process (decisions 0043 and 0058): the owner node is
 * the session row's `node_id`; other processes ask it over this catalogue and attach through the stream relay
 * on the kind's `open` subject. Everything here is checked on receipt by the owned-state seam.
 */
import { Type, type Static } from 'typebox';
import { streamLimits } from '@svc/protocol';
import { defineOwnedKind } from '../../platform/cluster/owned-state.js';
import { WireId, WireReason } from '../../platform/cluster/wire-values.js';

/** What one page of a list may ask of one owner; a list's page is at most 500 rows. */
export const maxViewIds = 500;

const LiveValues = Type.Object(
  {
    id: WireId,
    cols: Type.Integer({ minimum: streamLimits.terminalCols.min, maximum: streamLimits.terminalCols.max }),
    rows: Type.Integer({ minimum: streamLimits.terminalRows.min, maximum: streamLimits.terminalRows.max }),
    attached: Type.Integer({ minimum: 0, maximum: 10_000 }),
    last_activity_at: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?Z$' }),
  },
  { additionalProperties: false },
);
/** A live session's values as the owner sees them now. */
export type LiveValues = Static<typeof LiveValues>;

export const sessionKind = defineOwnedKind({
  name: 'session',
  requests: {
    /** Ends a session on its owner (a close sent to another process); `ended` when it was live there. */
    end: {
      request: Type.Object({ session_id: WireId, reason: WireReason }, { additionalProperties: false }),
      reply: Type.Object({ ended: Type.Boolean() }, { additionalProperties: false }),
    },
    /** The owner's live sessions among those asked; one not listed is not live there (any more). */
    view: {
      request: Type.Object(
        { session_ids: Type.Array(WireId, { minItems: 1, maxItems: maxViewIds }) },
        { additionalProperties: false },
      ),
      reply: Type.Object(
        { sessions: Type.Array(LiveValues, { maxItems: maxViewIds }) },
        { additionalProperties: false },
      ),
    },
  },
  notifies: {},
});
