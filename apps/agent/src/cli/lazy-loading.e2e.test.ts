/**
 * The shipped agent loads each area on its first use (decision 0067): run as shipped (`node bin/svc-agent.js
 * run`, the bundle and its chunks, which the test run's global setup builds) against a loopback stand-in for
 * the hub, with a module hook that records every file the process loads. Idle and connected, it has loaded
 * none of the code of exec, files, terminals, desktop tunnels, containers, package updates, service checks or the command-line
 * parser; each area still answers its first request, and only then is its code loaded. The same holds for the
 * Node built-ins that only some areas need (decision 0099): child processes, zlib, UDP, the diagnostic report,
 * worker threads.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import module from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { writeSettingsFile } from '../config/settings-file.js';
import { nextFrame, useChannelServer } from '../testing/channel-server.js';

const launcher = fileURLToPath(new URL('../../bin/svc-agent.js', import.meta.url));
/** Where each area's code is defined in the bundle (esbuild keeps function names). */
const areas = {
  exec: 'function runExec(',
  files: 'function createFilesHandlers(',
  terminal: 'function createPtyOpeners(',
  desktop: 'function createTunnelOpeners(',
  containers: 'function createContainerHandlers(',
  processes: 'function createProcessesHandlers(',
  updates: 'function createUpdatesHandlers(',
  // The service-check probe shared with the hub (decision 0084): in the checks chunk, not the bundle.
  checks: 'function runProbe(',
  enrolment: 'function enroll(',
  'command-line parser': 'class _Command extends',
} as const;
type Area = keyof typeof areas;

/** Node built-ins the idle agent has no use for, as `process.moduleLoadList` names them. */
const idleFreeBuiltins = [
  'NativeModule child_process',
  'NativeModule zlib',
  'NativeModule dgram',
  'NativeModule internal/process/report',
  'NativeModule worker_threads',
];

// module.registerHooks: Node 22.15 / 23.5 and later; the agent itself runs on 22.12.
const canHook = 'registerHooks' in module;
const channel = useChannelServer('svc-agent-lazy-');

/** The areas whose code is in the files the agent loaded so far. */
async function loadedAreas(log: string): Promise<Area[]> {
  const files = (await readFile(log, 'utf8')).split('\n').filter((url) => url.startsWith('file:'));
  const code = (await Promise.all(files.map((url) => readFile(fileURLToPath(url), 'utf8')))).join('\n');
  return (Object.keys(areas) as Area[]).filter((area) => code.includes(areas[area]));
}

describe.skipIf(!canHook)('the shipped agent loads each area on first use', () => {
  it('holds none of the areas while idle, and each answers its first request', async () => {
    const log = path.join(channel.dir, 'loaded.txt');
    const builtinsLog = path.join(channel.dir, 'builtins.txt');
    const hook = path.join(channel.dir, 'record-loads.mjs');
    await writeFile(log, '');
    await writeFile(
      hook,
      `import { registerHooks } from 'node:module';
import { appendFileSync, writeFileSync } from 'node:fs';
process.on('SIGUSR2', () => writeFileSync(${JSON.stringify(builtinsLog)}, process.moduleLoadList.join('\\n')));
registerHooks({
  load(url, context, nextLoad) {
    appendFileSync(${JSON.stringify(log)}, url + '\\n');
    return nextLoad(url, context);
  },
});
`,
    );
    const configPath = path.join(channel.dir, 'settings.json');
    await writeSettingsFile(configPath, {
      hub_url: channel.url,
      credential: `sva_${'a'.repeat(52)}`,
      allow_power_actions: false,
      // No engine answers here: containers.list still runs the container code, which says so.
      docker_endpoint: `unix://${path.join(channel.dir, 'no-engine.sock')}`,
    });
    const connected = once(channel.wss, 'connection') as Promise<[WebSocket]>;
    const child = spawn(process.execPath, ['--import', hook, launcher, 'run', '--config', configPath], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: process.env,
    });
    let stderr = '';
    /** The built-ins of `idleFreeBuiltins` the agent has loaded by now. */
    const loadedBuiltins = async () => {
      await writeFile(builtinsLog, '');
      child.kill('SIGUSR2');
      let text = '';
      while (!text) {
        await new Promise((r) => setTimeout(r, 50));
        text = await readFile(builtinsLog, 'utf8');
      }
      const loaded = new Set(text.split('\n'));
      return idleFreeBuiltins.filter((name) => loaded.has(name));
    };
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    try {
      const [ws] = await connected;
      await nextFrame(ws, 'hello');
      ws.send(
        JSON.stringify({
          v: 1,
          type: 'welcome',
          id: 'w',
          payload: { asset_id: 'ast_1', heartbeat_interval_s: 30, collect_interval_s: 10 },
        }),
      );
      const firstMetrics = nextFrame(ws, 'metrics');
      await firstMetrics;
      // Connected, welcomed, metrics flowing: the idle agent.
      expect(await loadedAreas(log)).toEqual([]);
      expect(await loadedBuiltins()).toEqual([]);

      const ask = async (type: string, payload: unknown) => {
        const id = `${type}-1`;
        const result = nextFrame(ws, 'result', id);
        ws.send(JSON.stringify({ v: 1, type, id, payload }));
        return (await result).payload;
      };
      expect(
        await ask('exec.run', { command: 'echo lazily', timeout_ms: 5000, max_output_bytes: 100 }),
      ).toMatchObject({ ok: true, data: { stdout: 'lazily\n', exit_code: 0 } });
      expect(await loadedAreas(log)).toEqual(['exec']);
      expect(await loadedBuiltins()).toEqual(expect.arrayContaining(['NativeModule child_process']));

      await writeFile(path.join(channel.dir, 'seen.txt'), 'x');
      const listed = await ask('files.list', { path: channel.dir });
      expect(listed).toMatchObject({ ok: true, data: { path: channel.dir } });
      expect(JSON.stringify(listed)).toContain('seen.txt');
      expect(await ask('processes.list', {})).toMatchObject({ ok: true });
      const containers = (await ask('containers.list', {})) as { ok: boolean; error?: { message: string } };
      expect(containers.ok).toBe(false);
      expect(containers.error?.message).not.toMatch(/cannot load/);
      expect(await loadedAreas(log)).toEqual(['exec', 'files', 'containers', 'processes']);
      // The package-manager drivers too: the hello only looked for the manager's program on the PATH.
      expect(await ask('updates.list', { refresh: false })).toMatchObject({ ok: true });
      expect(await loadedAreas(log)).toEqual(['exec', 'files', 'containers', 'processes', 'updates']);
      // A service check: a TCP probe of this stand-in hub's own port.
      const port = new URL(channel.url).port;
      const check = {
        kind: 'tcp',
        target: `127.0.0.1:${port}`,
        timeout_ms: 2000,
        tls_verify: true,
        expected_status: null,
        expected_body: null,
      };
      expect(await ask('check.run', check)).toMatchObject({ ok: true, data: { ok: true, error: null } });
      expect(await loadedAreas(log)).toEqual([
        'exec',
        'files',
        'containers',
        'processes',
        'updates',
        'checks',
      ]);

      const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
      child.kill('SIGTERM');
      const [code] = await exited;
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    expect(stderr).toContain('connected to the hub');
  });
});
