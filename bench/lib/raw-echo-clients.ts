/**
 * One process of the fanout baseline's clients: RAW_COUNT plain `ws` clients (no hello, no validation) to
 * RAW_URL (wss://127.0.0.1:…) trusting RAW_CA_FILE, each echoing every message it gets with a reply of the
 * size of a fake agent's exec result. Prints `{"started":{"connected":n,"failed":n}}` once all have tried, then
 * a status line every second.
 */
import fs from 'node:fs';
import WebSocket from 'ws';

const url = process.env.RAW_URL ?? '';
if (!/^wss?:\/\/(127\.|localhost|\[::1\])/.test(url)) throw new Error(`loopback only, not ${url}`);
const ca = process.env.RAW_CA_FILE ? fs.readFileSync(process.env.RAW_CA_FILE, 'utf8') : undefined;
const count = Number(process.env.RAW_COUNT ?? 0);
const concurrency = Number(process.env.RAW_CONCURRENCY ?? 100);
const sockets: WebSocket[] = [];
let echoed = 0;

// The reply a fake agent sends for `echo bench`, so both directions carry what the hub's do.
const reply = JSON.stringify({
  v: 1,
  type: 'result',
  id: 'r0-0000',
  payload: {
    ok: true,
    data: {
      exit_code: 0,
      signal: null,
      stdout: 'echo bench\n',
      stderr: '',
      truncated: false,
      timed_out: false,
      duration_ms: 1,
    },
  },
});

function connect(): Promise<boolean> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { ...(ca ? { ca } : {}), perMessageDeflate: false });
    ws.once('open', () => {
      sockets.push(ws);
      resolve(true);
    });
    ws.once('error', () => {
      resolve(false);
    });
    ws.on('message', () => {
      echoed += 1;
      ws.send(reply);
    });
  });
}

let connected = 0;
let failed = 0;
let next = 0;
const worker = async () => {
  while (next < count) {
    next += 1;
    if (await connect()) connected += 1;
    else failed += 1;
  }
};
await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
process.stdout.write(`${JSON.stringify({ started: { connected, failed } })}\n`);
setInterval(() => {
  process.stdout.write(`${JSON.stringify({ raw: { connected: sockets.length, echoed } })}\n`);
}, 1000).unref();
process.on('SIGTERM', () => {
  for (const ws of sockets) ws.terminate();
  process.exit(0);
});
setInterval(() => undefined, 1 << 30);
