/**
 * What the console types into a terminal for the user (decision 0091): a bookmark's `cd`, a snippet, a paste;
 * and how that input is cut into frames the hub accepts (one frame at most 16 KiB, sessionLimits).
 */

/** Single-quoted for a POSIX shell: every character literal, a quote closed, escaped and reopened. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The first input of a terminal opened from a bookmark: into the directory, whatever its name holds (`--`:
 * a name starting with `-` is not an option). Sent once the shell prints, so the shell reads it.
 */
export function cdInput(directory: string): string {
  return `cd -- ${shellQuote(directory)}\r`;
}

/** Bytes per input frame: half the hub's limit, room for what a frame carries besides. */
const inputFrameBytes = 8 * 1024;

/** Input cut into frames of at most `size` bytes (a byte stream: a character may span two frames). */
export function inputFrames(
  bytes: Uint8Array<ArrayBuffer>,
  size = inputFrameBytes,
): Uint8Array<ArrayBuffer>[] {
  const frames: Uint8Array<ArrayBuffer>[] = [];
  for (let at = 0; at < bytes.length; at += size) frames.push(bytes.subarray(at, at + size));
  return frames;
}

/** What a snippet inserts: its text without the line ends it closes with, so nothing runs by itself. */
export function snippetInsertText(text: string): string {
  return text.replace(/[\r\n]+$/, '');
}

/**
 * Whether inserting `text` would run something: a line break inside it, in a shell that has not asked for
 * bracketed paste (which keeps pasted line breaks from running, as bash and zsh do), runs each line.
 */
export function insertWouldRun(text: string, bracketedPaste: boolean): boolean {
  return !bracketedPaste && /[\r\n]/.test(snippetInsertText(text));
}
