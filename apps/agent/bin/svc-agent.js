#!/usr/bin/env node
// The svc-agent executable: refuses a Node.js older than it needs, then runs the agent bundle that the build
// (scripts/build.js: `npm install`, `npm run build`, `npm pack`) wrote to dist/svc-agent.mjs (and dist/chunks,
// which it imports on first use).
// The bundle is imported only after the check, so an old Node says why instead of failing inside it.
import { existsSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';
import { refuseOldNode } from './node-version.js';

refuseOldNode('svc-agent');
const bundle = new URL('../dist/svc-agent.mjs', import.meta.url);
if (!existsSync(bundle)) {
  process.stderr.write(
    'svc-agent: the agent is not built (dist/svc-agent.mjs is missing); run `npm run build`\n',
  );
  process.exit(1);
}
await import(bundle.href);
