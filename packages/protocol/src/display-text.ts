/**
 * Text people read: names and descriptions reach logs, terminals and the console. Control characters,
 * escape sequences and bidirectional controls in them can rewrite a terminal line, hide text or make a
 * name read differently from what it is, so a name a caller sends with one is refused, and one an agent
 * reports has them stripped.
 */
import { Type } from 'typebox';

/**
 * C1 controls (U+007F–U+009F, with CSI U+009B), bidi marks and overrides (U+061C, U+200E, U+200F,
 * U+202A–U+202E, U+2066–U+2069) and the line and paragraph separators U+2028 and U+2029, which JavaScript
 * and some terminals read as line breaks. Written as escapes so the JSON-schema pattern stays ASCII.
 */
const unsafeBeyondC0 = '\\u007F-\\u009F\\u061C\\u200E\\u200F\\u2028-\\u202E\\u2066-\\u2069';

/** A name: one line, no C0 control (U+0000–U+001F, ESC included) nor any of `unsafeBeyondC0`. */
export const displayNamePattern = `^[^\\u0000-\\u001F${unsafeBeyondC0}]*$`;

/** A description: as a name, but tab and line feed are allowed (CR is not: it rewrites a terminal line). */
export const displayTextPattern = `^[^\\u0000-\\u0008\\u000B-\\u001F${unsafeBeyondC0}]*$`;

/** What a caller is told when a name or description breaks one of the patterns above. */
export const displayTextProblem =
  'must not contain control characters, escape sequences or bidirectional formatting characters';

/** A name a caller gives (an asset, a group, a key, an enrollment token). */
export const DisplayName = (maxLength: number) =>
  Type.String({ minLength: 1, maxLength, pattern: displayNamePattern });

/** Free text a caller gives (a description): several lines allowed. */
export const DisplayText = (maxLength: number) => Type.String({ maxLength, pattern: displayTextPattern });

const displayName = new RegExp(displayNamePattern, 'u');

export function isDisplayName(text: string): boolean {
  return displayName.test(text);
}

// Whole escape sequences go first, so a colour code leaves no `[31m` behind: CSI (ESC [ or U+009B, then
// parameters, intermediates and a final byte), OSC/DCS/APC/PM/SOS strings up to their terminator, and
// two-character ESC sequences.
const escapeSequence =
  // eslint-disable-next-line no-control-regex -- these are the characters it exists to remove
  /(?:\u001B\[|\u009B)[0-?]*[ -/]*[@-~]?|\u001B[\]PX^_][^\u0007\u001B\u009C]*(?:\u0007|\u001B\\|\u009C)?|\u001B[ -~]?/gu;
const unsafeCharacter = new RegExp(`[\\u0000-\\u001F${unsafeBeyondC0}]+`, 'gu');

/**
 * Text an agent reports (a hostname, an OS name), made safe to show: escape sequences and unsafe characters
 * removed, the ends trimmed. An agent's text is not refused for this, as the agent could do nothing about it.
 */
export function sanitizeDisplayText(text: string): string {
  return text.replace(escapeSequence, '').replace(unsafeCharacter, '').trim();
}
