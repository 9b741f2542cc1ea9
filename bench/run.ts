/** `npm run bench -- <name>`: runs one benchmark and writes its section of docs/BENCHMARKS.md. */
import { runAgentBench } from './agent.bench.js';
import { runAgentsBench } from './agents.bench.js';
import { runApiBench } from './api.bench.js';
import { runFanoutBench } from './fanout.bench.js';
import { runFanoutOutputBench } from './fanout-output.bench.js';
import { runStormBench } from './storm.bench.js';
import { runIngestBench } from './ingest.bench.js';
import { runTlsBench } from './tls.bench.js';
import { runSigninBench } from './signin.bench.js';
import { runConsoleBench } from './console.bench.js';
import { runEventsBench } from './events.bench.js';
import { runWebhooksBench } from './webhooks.bench.js';
import { runSessionsBench } from './sessions.bench.js';
import { runClusterBench } from './cluster.bench.js';
import { runMcpBench } from './mcp.bench.js';
import { runUpdatesBench } from './updates.bench.js';

const benchmarks: Record<string, () => Promise<void>> = {
  api: runApiBench,
  agents: runAgentsBench,
  storm: runStormBench,
  ingest: runIngestBench,
  fanout: runFanoutBench,
  'fanout-output': runFanoutOutputBench,
  agent: runAgentBench,
  tls: runTlsBench,
  signin: runSigninBench,
  console: runConsoleBench,
  events: runEventsBench,
  webhooks: runWebhooksBench,
  sessions: runSessionsBench,
  cluster: runClusterBench,
  mcp: runMcpBench,
  updates: runUpdatesBench,
};

const name = process.argv[2];
if (!name || !benchmarks[name]) {
  process.stderr.write(`usage: npm run bench -- <${Object.keys(benchmarks).join('|')}>\n`);
  process.exit(2);
}
benchmarks[name]().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `bench ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
