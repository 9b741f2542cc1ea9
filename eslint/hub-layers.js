// @ts-check
/**
 * The hub's layers (docs/architecture.md), checked on where an import lands rather than how it is spelled:
 * each relative import is resolved against the importing file, so `../other/x.repository.js` and
 * `../../modules/other/x.repository.js` are the same import of another module's internals.
 * - Below the modules (access/, agents/, config/, connectors/, http/, platform/): nothing in modules/.
 * - A module (modules/<area>/…): of another module only its public surface, the files directly in its folder
 *   named `*.module.ts`, `*.service.ts` or `*.presenter.ts`.
 * - The wiring (apps/hub/src/*.ts and apps/hub/src/hub/*.ts: hub.ts and its parts): the same public surface of every module.
 * Tests are exempt (eslint.config.js leaves them out); apps/hub/src/layers.test.ts proves each case.
 */
import path from 'node:path';

const hubRoot = `${path.sep}apps${path.sep}hub${path.sep}src${path.sep}`;
const below = new Set(['access', 'agents', 'config', 'connectors', 'http', 'platform']);
const publicFile = /^[^/]+\.(module|service|presenter)\.(js|ts)$/;

/**
 * Where a file sits in the hub: its folder's kind, and its module when in one.
 * @param {string} relative path under apps/hub/src, with forward slashes
 * @returns {{ kind: 'module', module: string, rest: string } | { kind: 'modules-root' } | { kind: 'below' } | { kind: 'wiring' } | { kind: 'other' }}
 */
function placeOf(relative) {
  const parts = relative.split('/');
  const [top = '', second = ''] = parts;
  if (top === 'modules') {
    return parts.length >= 3
      ? { kind: 'module', module: second, rest: parts.slice(2).join('/') }
      : { kind: 'modules-root' };
  }
  // hub.ts and its parts in hub/ (apps/hub/src/hub/*.ts) wire the modules together.
  if (parts.length === 1 || (top === 'hub' && parts.length === 2)) return { kind: 'wiring' };
  return below.has(top) ? { kind: 'below' } : { kind: 'other' };
}

/** @type {import('eslint').Rule.RuleModule} */
export const hubLayers = {
  meta: {
    type: 'problem',
    docs: { description: "Imports follow the hub's layers and modules' public surfaces." },
    schema: [],
    messages: {
      below:
        'Below the modules: pass what a module provides in as a dependency, or move the shared piece down here.',
      internals:
        "Another module's internals: use its service (or its module file); its repository and routes are its own.",
      wiring: "Wiring uses a module's public surface: its module file and services.",
    },
  },
  create(context) {
    const file = context.filename;
    const at = file.lastIndexOf(hubRoot);
    if (at < 0) return {};
    const root = file.slice(0, at + hubRoot.length);
    const from = placeOf(path.relative(root, file).split(path.sep).join('/'));
    if (from.kind === 'other' || from.kind === 'modules-root') return {};

    /** @param {import('estree').Node} node @param {unknown} source */
    function check(node, source) {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const relative = path
        .relative(root, path.resolve(path.dirname(file), source))
        .split(path.sep)
        .join('/');
      if (relative.startsWith('../')) return;
      const to = placeOf(relative);
      if (from.kind === 'below') {
        if (to.kind === 'module' || to.kind === 'modules-root') context.report({ node, messageId: 'below' });
        return;
      }
      if (to.kind !== 'module' || publicFile.test(to.rest)) return;
      if (from.kind === 'wiring') context.report({ node, messageId: 'wiring' });
      else if (from.module !== to.module) context.report({ node, messageId: 'internals' });
    }

    return {
      ImportDeclaration(node) {
        check(node.source, node.source.value);
      },
      ExportNamedDeclaration(node) {
        if (node.source) check(node.source, node.source.value);
      },
      ExportAllDeclaration(node) {
        check(node.source, node.source.value);
      },
      ImportExpression(node) {
        if (node.source.type === 'Literal') check(node.source, node.source.value);
      },
    };
  },
};
