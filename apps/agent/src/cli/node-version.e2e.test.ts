/**
 * The Node.js check that bin/svc-agent.js and the hub's bin/svc-hub.js run before anything else: the rule as
 * a table, the required version kept equal to `engines.node`, and the real executables on an older Node
 * (the machine's own, when it has one), which must say what they found and what they need, and exit.
 * Also: after `npm install`, `svc-agent` is runnable from node_modules/.bin as the README says.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem, requiredNode } from '../../bin/node-version.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const agentBin = path.join(repoRoot, 'apps/agent/bin/svc-agent.js');

describe('nodeVersionProblem', () => {
  it.each([
    { found: '20.20.2', ok: false },
    { found: '18.19.0', ok: false },
    { found: '22.11.0', ok: false },
    { found: '22.12.0', ok: true },
    { found: '22.12.1', ok: true },
    { found: '22.22.0', ok: true },
    { found: '23.0.0', ok: true },
    { found: '24.21.0', ok: true },
    { found: 'v24.0.0', ok: true },
    { found: '100.0.0', ok: true },
    { found: 'not a version', ok: false },
  ])('Node $found against 22.12.0: runs = $ok', ({ found, ok }) => {
    const problem = nodeVersionProblem('svc-agent', found, '22.12.0');
    if (ok) expect(problem).toBeNull();
    else {
      expect(problem).toContain(`this is Node.js ${found}`);
      expect(problem).toContain('needs Node.js 22.12.0 or newer');
    }
  });

  it('uses the required version by default', () => {
    expect(nodeVersionProblem('x', requiredNode)).toBeNull();
    expect(nodeVersionProblem('x', '22.11.99')).not.toBeNull();
  });
});

it('requires what engines.node in every package.json says', () => {
  const manifests = [
    'package.json',
    'apps/agent',
    'apps/hub',
    'packages/protocol',
    'packages/sdk',
    'packages/testkit',
  ];
  const [major, minor] = requiredNode.split('.');
  for (const manifest of manifests) {
    const file = path.join(repoRoot, manifest.endsWith('.json') ? manifest : `${manifest}/package.json`);
    const { engines } = JSON.parse(fs.readFileSync(file, 'utf8')) as { engines?: { node?: string } };
    expect({ file: manifest, node: engines?.node }).toEqual({ file: manifest, node: `>=${major}.${minor}` });
  }
});

/** A Node on this machine too old for svc (Debian's own, here 20), or null. */
function olderNode(): { path: string; version: string } | null {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!fs.existsSync(candidate)) continue;
    const probe = spawnSync(candidate, ['-p', 'process.versions.node'], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    const version = probe.stdout.trim();
    if (probe.status === 0 && nodeVersionProblem('x', version) !== null) return { path: candidate, version };
  }
  return null;
}

const old = olderNode();

describe.skipIf(old === null)(`on an older Node (${old?.version ?? 'none found'})`, () => {
  it.each([
    { program: 'svc-agent', entry: agentBin, args: ['run'] },
    { program: 'svc hub', entry: path.join(repoRoot, 'apps/hub/bin/svc-hub.js'), args: [] },
  ])(
    '$program refuses at once, naming the version it found and the one it needs',
    ({ program, entry, args }) => {
      const node = old?.path ?? '';
      const result = spawnSync(node, [entry, ...args], {
        encoding: 'utf8',
        timeout: 20_000,
        // Nothing it could start with: if the check did not stop it, the hub or agent would fail otherwise.
        env: {
          PATH: process.env.PATH,
          SVC_DATA_DIR: '/nonexistent/svc-node-check',
          SVC_AGENT_CONFIG: '/nonexistent',
        },
      });
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim()).toBe(
        `${program} needs Node.js ${requiredNode} or newer (22 or 24 LTS); this is Node.js ${old?.version ?? ''}. Install a current Node.js (https://nodejs.org) and start it again.`,
      );
    },
  );
});

describe.skipIf(old === null)(
  `npm start and npm ci on an older Node (${old?.version ?? 'none found'})`,
  () => {
    it("npm start's build refuses at once, naming this checkout's remedy", () => {
      const result = spawnSync(old?.path ?? '', [path.join(repoRoot, 'scripts/build.js')], {
        encoding: 'utf8',
        timeout: 20_000,
        env: { PATH: process.env.PATH },
      });
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`this is Node.js ${old?.version ?? ''}`);
      expect(result.stderr).toContain('source scripts/use-node24.sh');
    });

    it('npm ci refuses before installing: devEngines asks for the Node engines.node names', () => {
      const { devEngines } = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
        devEngines?: unknown;
      };
      const [major, minor] = requiredNode.split('.');
      expect(devEngines).toEqual({
        runtime: { name: 'node', version: `>=${major}.${minor}`, onFail: 'error' },
      });
    });
  },
);

it('after npm install, node_modules/.bin/svc-agent runs (README: npx svc-agent)', () => {
  const bin = path.join(repoRoot, 'node_modules/.bin/svc-agent');
  expect(fs.realpathSync(bin)).toBe(fs.realpathSync(agentBin));
  // Its `#!/usr/bin/env node` finds the Node that runs this test first on PATH.
  const result = spawnSync(bin, ['--help'], {
    encoding: 'utf8',
    timeout: 20_000,
    env: {
      ...process.env,
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
    },
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(result.stdout).toContain('Usage: svc-agent');
  expect(result.stdout).toContain('enroll');
});
