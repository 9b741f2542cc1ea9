/**
 * The baseline of the fanout benchmark: a bare `ws` server over HTTPS (the same kind of certificate as the
 * hub's: ECDSA P-256, signed by a CA of its own) with nothing on top. `POST /broadcast?n=N` sends one message —
 * the size of the hub's exec request frame — to the first N connected clients (bench/lib/raw-echo-clients.ts,
 * which echo it) and answers once N echoes are back. No authentication, no validation, no database, no audit:
 * the hub's time divided by this one is what the hub adds to the network round trips.
 *
 * Env: RAW_PORT, RAW_CERT_FILE, RAW_KEY_FILE (PEM). Loopback only.
 */
import fs from 'node:fs';
import https from 'node:https';
import { WebSocketServer, type WebSocket } from 'ws';

const port = Number(process.env.RAW_PORT);
const server = https.createServer({
  cert: fs.readFileSync(process.env.RAW_CERT_FILE ?? '', 'utf8'),
  key: fs.readFileSync(process.env.RAW_KEY_FILE ?? '', 'utf8'),
});
const wss = new WebSocketServer({ server, perMessageDeflate: false, clientTracking: false });
const clients: WebSocket[] = [];

interface Round {
  expected: number;
  got: number;
  done: () => void;
}
let round: Round | null = null;
let sequence = 0;

wss.on('connection', (ws) => {
  clients.push(ws);
  ws.on('message', () => {
    if (!round) return;
    round.got += 1;
    if (round.got === round.expected) round.done();
  });
  ws.on('close', () => {
    const i = clients.indexOf(ws);
    if (i >= 0) clients.splice(i, 1);
  });
  ws.on('error', () => undefined);
});

function frame(id: string): string {
  // The shape and size of the hub's request frame for `exec.run`.
  return JSON.stringify({
    v: 1,
    type: 'exec.run',
    id,
    payload: { command: 'echo bench', timeout_ms: 30_000, max_output_bytes: 1_048_576 },
  });
}

server.on('request', (req, res) => {
  const url = new URL(req.url ?? '/', 'https://127.0.0.1');
  if (req.method === 'GET' && url.pathname === '/clients') {
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ clients: clients.length }));
    return;
  }
  if (req.method !== 'POST' || url.pathname !== '/broadcast') {
    res.writeHead(404).end();
    return;
  }
  req.resume();
  const n = Number(url.searchParams.get('n'));
  if (!Number.isInteger(n) || n < 1 || n > clients.length || round) {
    res
      .writeHead(409, { 'content-type': 'application/json' })
      .end(JSON.stringify({ clients: clients.length }));
    return;
  }
  const started = performance.now();
  const timer = setTimeout(() => {
    round = null;
    res.writeHead(504).end();
  }, 60_000);
  round = {
    expected: n,
    got: 0,
    done: () => {
      clearTimeout(timer);
      round = null;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ n, ms: performance.now() - started }));
    },
  };
  sequence += 1;
  for (let i = 0; i < n; i++) (clients[i] as WebSocket).send(frame(`r${sequence}-${i}`));
});

server.listen(port, '127.0.0.1', () => {
  process.stdout.write('raw echo server ready\n');
});
process.on('SIGTERM', () => {
  for (const ws of clients) ws.terminate();
  server.close();
  process.exit(0);
});
