#!/usr/bin/env node
// Starts the hub as compiled JavaScript (dist/main.js, built by scripts/build.js on `npm install` and
// `npm start`). The Node.js check comes first and the hub is imported only after it: on an older Node the
// hub's native modules would fail with a message that names neither Node nor the fix.
import { existsSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';
import { refuseOldNode } from '../../agent/bin/node-version.js';

refuseOldNode('svc hub');
const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write(
    'svc hub: the hub is not built (apps/hub/dist/main.js is missing); run `npm run build`\n',
  );
  process.exit(1);
}
// Stack traces name the TypeScript sources (dist/main.js.map).
process.setSourceMapsEnabled(true);
await import(main.href);
