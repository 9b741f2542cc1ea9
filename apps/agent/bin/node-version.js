/**
 * The Node.js this code needs, checked before anything else loads. On an older Node the hub and the agent
 * used to start and then abort inside a native module (better-sqlite3 12 on Node 24, a version-13 addon on
 * Node 20) with a message that names neither Node nor the fix; this says both and exits.
 *
 * Deliberately plain: no import and no syntax newer than ES2017, so that the old Node it is written for can
 * parse it. The hub's launcher (apps/hub/bin/svc-hub.js) uses it too. `process` is node's global: an ES import
 * of node:process builds its ES facade, which reads process.report and with it loads the diagnostic report and
 * node:fs/promises into the agent's daemon for good (decision 0099).
 */

/* global process */
/** Kept equal to `engines.node` in every package.json (a test compares them). */
export const requiredNode = '22.12.0';

/**
 * @param {string} version like "20.20.2" (process.versions.node)
 * @returns {number[] | null} major, minor, patch; null when it is not such a version
 */
function parse(version) {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!match) return null;
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

/**
 * Why `found` cannot run a program that needs `required`, or null when it can.
 * @param {string} program what to call the program in the message ("svc hub", "svc-agent")
 * @param {string} found the running Node's version
 * @param {string} [required]
 * @returns {string | null}
 */
export function nodeVersionProblem(program, found, required) {
  const need = required === undefined ? requiredNode : required;
  const have = parse(found);
  const want = parse(need);
  if (!want) throw new Error('not a version: ' + need);
  if (have) {
    for (let i = 0; i < 3; i++) {
      const a = /** @type {number} */ (have[i]);
      const b = /** @type {number} */ (want[i]);
      if (a > b) return null;
      if (a < b) break;
      if (i === 2) return null;
    }
  }
  return (
    program +
    ' needs Node.js ' +
    need +
    ' or newer (22 or 24 LTS); this is Node.js ' +
    found +
    '. Install a current Node.js (https://nodejs.org) and start it again.'
  );
}

/**
 * Exits with status 1 and the reason on stderr when this Node is too old for `program`.
 * @param {string} program
 */
export function refuseOldNode(program) {
  const problem = nodeVersionProblem(program, process.versions.node);
  if (problem === null) return;
  process.stderr.write(problem + '\n');
  process.exit(1);
}
