/** A test's browser attached to a terminal session over WebSocket: what it saw, and how it was closed. */
import { expect } from 'vitest';
import { WebSocket } from 'ws';

export interface Attached {
  ws: WebSocket;
  text(): string;
  controls: Record<string, unknown>[];
  closed: Promise<{ code: number; reason: string }>;
  waitFor(pattern: RegExp): Promise<void>;
}

export type Refusal = { status: number; body: Record<string, unknown> };

export function attach(port: number, key: string, id: string): Promise<Attached | Refusal> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v2/sessions/${id}/attach`, {
      headers: { authorization: `Bearer ${key}` },
    });
    let output = '';
    const controls: Record<string, unknown>[] = [];
    const closed = new Promise<{ code: number; reason: string }>((done) => {
      ws.on('close', (code, reason) => {
        done({ code, reason: reason.toString() });
      });
    });
    ws.on('message', (data: Buffer, isBinary) => {
      if (isBinary) output += data.toString('utf8');
      else controls.push(JSON.parse(data.toString('utf8')) as Record<string, unknown>);
    });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) as Record<string, unknown> });
      });
    });
    ws.on('error', reject);
    ws.on('open', () => {
      resolve({
        ws,
        text: () => output,
        controls,
        closed,
        async waitFor(pattern) {
          for (let i = 0; i < 300 && !pattern.test(output); i++) await new Promise((r) => setTimeout(r, 10));
          expect(output).toMatch(pattern);
        },
      });
    });
  });
}

export function attached(result: Attached | Refusal): Attached {
  if ('status' in result) throw new Error(`attach refused: ${result.status} ${JSON.stringify(result.body)}`);
  return result;
}
