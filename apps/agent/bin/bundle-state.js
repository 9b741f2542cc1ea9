/**
 * Where the precompiled agent lives and whether it still matches the sources. `scripts/build.js` writes the
 * bundle and, beside it, the SHA-256 of every source file of this repository it was built from (packages in
 * node_modules are left out: installing them rebuilds the bundle). The bundle counts as current when each of
 * those files still has that digest — content, not modification times, so copies and checkouts do not matter.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const agentDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const bundleFile = path.join(agentDir, 'dist', 'svc-agent.mjs');
export const sourcesFile = path.join(agentDir, 'dist', 'svc-agent.sources.json');

/** @param {Uint8Array | string} content */
export function digestOf(content) {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * The digests recorded at the last build (path relative to the agent folder → SHA-256), or null when there
 * is no readable record.
 * @returns {Map<string, string> | null}
 */
function readBuiltSources() {
  try {
    /** @type {unknown} */
    const record = JSON.parse(readFileSync(sourcesFile, 'utf8'));
    if (typeof record !== 'object' || record === null || !('sources' in record)) return null;
    const sources = record.sources;
    if (typeof sources !== 'object' || sources === null) return null;
    /** @type {Map<string, string>} */
    const digests = new Map();
    for (const [relative, digest] of Object.entries(sources)) {
      if (typeof digest !== 'string') return null;
      digests.set(relative, digest);
    }
    return digests.size > 0 ? digests : null;
  } catch {
    return null;
  }
}

/** @param {string} file */
function readOrNull(file) {
  try {
    return readFileSync(file);
  } catch {
    return null;
  }
}

/**
 * Why the bundle cannot be run as it is, or null when it was built from the sources as they are now.
 * @returns {string | null}
 */
export function bundleStaleReason() {
  const digests = readBuiltSources();
  if (!digests || !existsSync(bundleFile))
    return `no precompiled bundle (${path.relative(agentDir, bundleFile)})`;
  for (const [relative, digest] of digests) {
    const content = readOrNull(path.resolve(agentDir, relative));
    if (!content || digestOf(content) !== digest) return `${relative} changed since the bundle was built`;
  }
  return null;
}
