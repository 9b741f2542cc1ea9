#!/usr/bin/env node
// Launcher: the agent is TypeScript run through tsx (no build step, like the hub).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
