/** What a file transfer through the agent needs besides the path: a download's name, strict base64. */
import path from 'node:path';

/** A download name safe in a Content-Disposition header: the last segment, plain ASCII. */
export function downloadName(canonical: string): { ascii: string; encoded: string } {
  // Whole code points, so a cut never leaves half a surrogate pair for encodeURIComponent to throw on.
  const base = Array.from(path.posix.basename(canonical) || 'download')
    .slice(0, 200)
    .join('');
  const ascii = base.replace(/[^A-Za-z0-9._-]/g, '_') || 'download';
  let encoded = ascii;
  try {
    // RFC 8187 attr-chars: encodeURIComponent leaves ' ( ) * ! as they are; ' would end the charset part.
    encoded = encodeURIComponent(base).replace(
      /['()*!]/g,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
    );
  } catch {
    // A lone surrogate cannot be encoded: the ASCII name stands in.
  }
  return { ascii, encoded };
}

/**
 * Decodes strict base64 (padding optional): null when the text is not base64 at all, rather than the
 * lenient decoder's silent skipping. `maxBytes` is checked from the length, before anything is allocated.
 */
export function decodeBase64(
  text: string,
  maxBytes: number,
): { ok: true; bytes: Buffer } | { ok: false; tooLarge: boolean } {
  const body = text.replace(/={1,2}$/, '');
  if (body.length % 4 === 1 || !/^[A-Za-z0-9+/]*$/.test(body)) return { ok: false, tooLarge: false };
  if (Math.floor((body.length * 3) / 4) > maxBytes) return { ok: false, tooLarge: true };
  const bytes = Buffer.from(body, 'base64');
  if (bytes.toString('base64').replace(/={1,2}$/, '') !== body) return { ok: false, tooLarge: false };
  return { ok: true, bytes };
}
