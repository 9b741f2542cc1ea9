#!/usr/bin/env node
// The svc executable: refuses a Node.js older than it needs, then runs the CLI bundle that the build
// (scripts/build.js: `npm install`, `npm run build`) wrote to dist/svc.mjs.
import { existsSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';
import { refuseOldNode } from '../../../apps/agent/bin/node-version.js';

refuseOldNode('svc');
const bundle = new URL('../dist/svc.mjs', import.meta.url);
if (!existsSync(bundle)) {
  process.stderr.write('svc: the CLI is not built (dist/svc.mjs is missing); run `npm run build`\n');
  process.exit(1);
}
await import(bundle.href);
