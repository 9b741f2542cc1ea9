/**
 * The real executable: `node bin/svc-agent.js run --config <file>` as its own process, against a loopback
 * stand-in for the hub. This is how a script starts an agent from a hub URL and a credential. It runs as
 * shipped: the bundle dist/svc-agent.mjs, which the test run's global setup builds (scripts/build.js).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { tieringOptions } from '../../bin/node-options.js';
import { writeSettingsFile } from '../config/settings-file.js';
import { nextFrame, useChannelServer } from '../testing/channel-server.js';

const launcher = fileURLToPath(new URL('../../bin/svc-agent.js', import.meta.url));
const channel = useChannelServer('svc-agent-launch-');
it('runs as a process: connects, answers a request, and stops cleanly on SIGTERM', async () => {
  const configPath = path.join(channel.dir, 'settings.json');
  await writeSettingsFile(configPath, {
    hub_url: channel.url,
    credential: `sva_${'a'.repeat(52)}`,
    allow_power_actions: false,
  });
  const connected = once(channel.wss, 'connection') as Promise<[WebSocket, http.IncomingMessage]>;
  const child = spawn(process.execPath, [launcher, 'run', '--config', configPath], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: process.env,
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  try {
    const [ws, request] = await connected;
    // Listen for the hello before anything else is awaited: a frame that arrives with no listener is lost.
    const hello = nextFrame(ws, 'hello');
    expect(request.headers.authorization).toBe(`Bearer sva_${'a'.repeat(52)}`);
    // The daemon runs with its V8 options (decision 0085): node started again in the same process.
    if (typeof process.execve === 'function' && process.platform === 'linux') {
      const cmdline = (await readFile(`/proc/${String(child.pid)}/cmdline`, 'utf8')).split('\0');
      expect(cmdline).toEqual(expect.arrayContaining([...tieringOptions, launcher, 'run']));
    }
    await hello;
    ws.send(
      JSON.stringify({
        v: 1,
        type: 'welcome',
        id: 'w',
        payload: { asset_id: 'ast_1', heartbeat_interval_s: 30, collect_interval_s: 10 },
      }),
    );
    const result = nextFrame(ws, 'result');
    ws.send(
      JSON.stringify({
        v: 1,
        type: 'exec.run',
        id: 'e1',
        payload: { command: 'echo from-the-agent', timeout_ms: 5000, max_output_bytes: 100 },
      }),
    );
    expect((await result).payload).toMatchObject({
      ok: true,
      data: { stdout: 'from-the-agent\n', exit_code: 0 },
    });

    const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);
    expect(stderr).toContain('connected to the hub');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});
