#!/usr/bin/env node
// Launcher. Runs the precompiled agent (dist/svc-agent.mjs, built by scripts/build.js on `npm install`)
// when it was built from the sources as they are now: plain node, about 56 MB resident. Otherwise — no
// bundle, a source edited since, or SVC_AGENT_FROM_SOURCE=1 for development — the TypeScript sources through
// the tsx loader, which costs about 145 MB (docs/BENCHMARKS.md, "agent").
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { bundleFile, bundleStaleReason } from './bundle-state.js';

const fromSource = process.env.SVC_AGENT_FROM_SOURCE === '1';
const staleReason = fromSource ? null : bundleStaleReason();

if (!fromSource && staleReason === null) {
  await import(pathToFileURL(bundleFile).href);
} else {
  if (staleReason !== null) {
    process.stderr.write(
      `svc-agent: ${staleReason}; running the sources through tsx (npm run build -w @svc/agent precompiles)\n`,
    );
  }
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
