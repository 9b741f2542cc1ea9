/** Values every message between hub processes names things by (decision 0058). */
import { Type } from 'typebox';

/** Ids on the wire: what every kind of owned state names its state by, and node ids. */
export const WireId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
/** A reason or a message: cut to this many characters before it is sent. */
export const wireReasonLength = 200;
export const WireReason = Type.String({ maxLength: wireReasonLength });
