/**
 * The README followed literally on a fresh checkout (issue 28): the hub started as `npm start` starts it (the
 * built hub with the local agent, `./data` in the working directory), its log read as a person reads it, and
 * the README's own shell blocks — "First steps with the API", then the `svc` block — run by bash against it,
 * every curl failing the script on an HTTP error. The only changes to the README's text: the hub's port (a free
 * one instead of 8443), the CA fingerprint placeholder filled from the log, and no `npm run build` (this tier
 * has built already).
 *
 * And the log's format: at a terminal (a pty from util-linux `script`) readable lines, not JSON.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, waitFor } from './support.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const hubLauncher = path.join(repoRoot, 'apps/hub/bin/svc-hub.js');
const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

let work: string;
const children: ChildProcess[] = [];

/** This process's environment without any SVC_ variable: a fresh shell's. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SVC_')));
}

/** Every ```sh block of the README. */
function shellBlocks(): string[] {
  return [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
}

function blockWith(marker: string): string {
  const block = shellBlocks().find((text) => text.includes(marker));
  if (block === undefined) throw new Error(`the README has no sh block with ${marker}`);
  return block;
}

/** Drops terminal colour codes and carriage returns (a pty's line ends). */
function plain(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '').replace(/\r/g, '');
}

function lines(text: string): string[] {
  return plain(text)
    .split('\n')
    .filter((line) => line.trim() !== '');
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<Run> {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-readme-'));
});

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(kill);
    }
  }
  fs.rmSync(work, { recursive: true, force: true });
});

describe('the README, followed literally', () => {
  let checkout: string;
  let httpsPort: number;
  let log = '';

  beforeAll(async () => {
    // "In the checkout": ./data is the hub's, and `$PWD/packages/cli/bin/svc.js` is the built CLI.
    checkout = path.join(work, 'checkout');
    fs.mkdirSync(checkout);
    fs.symlinkSync(path.join(repoRoot, 'packages'), path.join(checkout, 'packages'));
    httpsPort = await freePort();
    const httpPort = await freePort();
    // What `npm start` runs (package.json: SVC_LOCAL_AGENT=true node apps/hub/bin/svc-hub.js), with free ports.
    const hub = spawn(process.execPath, [hubLauncher], {
      cwd: checkout,
      env: {
        ...cleanEnv(),
        HOME: work,
        SVC_LOCAL_AGENT: 'true',
        SVC_HTTPS_PORT: String(httpsPort),
        SVC_HTTP_PORT: String(httpPort),
        SVC_HOST: '127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(hub);
    hub.stdout.on('data', (chunk: Buffer) => {
      log += chunk.toString('utf8');
    });
    hub.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString('utf8');
    });
    await waitFor(
      'the console address in the log',
      () => {
        if (hub.exitCode !== null) throw new Error(`the hub exited:\n${log}`);
        return log.includes('web console:') ? true : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 100 },
    );
  }, 150_000);

  it("ends the start-up log with the console's address, after the local agent's lines", async () => {
    // Whatever comes after the start would come now: give it a moment, as a person looking at the terminal.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const all = lines(log);
    const last = JSON.parse(all.at(-1) ?? '{}') as { msg?: string };
    expect(last.msg, log).toBe(`web console: https://localhost:${String(httpsPort)}/`);
    const connected = all.findIndex((line) => line.includes('connected to the hub'));
    expect(connected, log).toBeGreaterThanOrEqual(0);
    expect(connected).toBeLessThan(all.length - 1);
  });

  it('runs the first steps, then `svc login` and `svc exec --group web`, as written', async () => {
    const fingerprint = /CA fingerprint \(SHA-256\): ([0-9A-F:]+)/.exec(log)?.[1];
    expect(fingerprint, log).toBeDefined();
    const firstSteps = blockWith('/api/auth/login');
    const cli = blockWith('svc exec --group web -- uptime');
    expect(firstSteps).toContain('/api/v2/enrollment-tokens');
    expect(cli).toContain('npm run build && ');
    const script = [
      'set -euo pipefail',
      'shopt -s expand_aliases',
      // An HTTP error fails the script (the README's curl -s would print it and go on).
      'curl() { command curl --fail-with-body --show-error "$@"; echo; }',
      firstSteps,
      cli.replace('npm run build && ', ''),
    ]
      .join('\n')
      .replaceAll('https://localhost:8443', `https://localhost:${String(httpsPort)}`)
      .replaceAll("<CA fingerprint from the hub's log>", fingerprint!);
    fs.writeFileSync(path.join(work, 'readme.sh'), script);
    const result = await run(
      'bash',
      [path.join(work, 'readme.sh')],
      checkout,
      { ...cleanEnv(), HOME: work, XDG_CONFIG_HOME: path.join(work, 'config') },
      180_000,
    );
    const shown = `exit ${String(result.code)}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}\n--- hub\n${log.slice(-3000)}`;
    expect(result.code, shown).toBe(0);
    // The whoami of the owner token, the command on this machine, the group, the enrollment token.
    expect(result.stdout, shown).toMatch(/"role":"owner"/);
    expect(result.stdout, shown).toMatch(/load average/);
    expect(result.stdout, shown).toMatch(/"name":"web"/);
    expect(result.stdout, shown).toMatch(/"token":"sve_/);
    // svc exec --group web: this machine's result header and uptime's output.
    expect(result.stdout, shown).toMatch(/^==> .+: exit 0 /m);
    expect(result.stdout.split('==> ').at(-1), shown).toMatch(/load average/);
  }, 200_000);
});

describe('the log at a terminal', () => {
  it('is readable lines, not JSON, when SVC_LOG_FORMAT is not set', async () => {
    const dir = path.join(work, 'tty');
    fs.mkdirSync(dir);
    const httpsPort = await freePort();
    const httpPort = await freePort();
    // util-linux `script` gives the hub a pty for stdout, as a terminal does; -e: its exit code.
    const child = spawn('script', ['-qfec', `${process.execPath} ${hubLauncher}`, '/dev/null'], {
      cwd: dir,
      env: {
        ...cleanEnv(),
        HOME: work,
        SVC_LOCAL_AGENT: 'false',
        SVC_HTTPS_PORT: String(httpsPort),
        SVC_HTTP_PORT: String(httpPort),
        SVC_HOST: '127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    await waitFor(
      'the console address',
      () => {
        if (child.exitCode !== null) throw new Error(`the hub exited:\n${out}`);
        return plain(out).includes('web console:') ? true : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 100 },
    );
    const shown = lines(out);
    const last = shown.at(-1) ?? '';
    expect(last, out).toMatch(
      new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO +web console: https://localhost:${String(httpsPort)}/`),
    );
    expect(shown.some((line) => line.startsWith('{'))).toBe(false);
  }, 150_000);
});
