/**
 * The CLI driven in-process without a hub: what a user sees for usage errors, missing or unsafe credentials,
 * help, and the completion scripts (checked by bash itself).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './program.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-program-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

async function run(argv: string[], env: Record<string, string> = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await runCli(argv, {
    stdout,
    stderr,
    stdin: new PassThrough(),
    env: { XDG_CONFIG_HOME: dir, HOME: dir, ...env },
    stdinIsTty: false,
    stderrIsTty: false,
    interrupt: new AbortController().signal,
  });
  return { code, out, err };
}

describe('svc without a hub', () => {
  it('says how to sign in when there is no credential (exit 3)', async () => {
    const { code, err } = await run(['assets', 'ls']);
    expect(code).toBe(3);
    expect(err).toContain('svc: not signed in: no hub address');
    expect(err).toContain(
      'hint: run `svc login --hub https://<hub>:8443`, or set SVC_HUB_URL and SVC_API_KEY',
    );
  });

  it('asks for a key when only the hub is known (exit 3)', async () => {
    const { code, err } = await run(['whoami'], { SVC_HUB_URL: 'https://127.0.0.1:1' });
    expect(code).toBe(3);
    expect(err).toContain('no API key for https://127.0.0.1:1');
  });

  it('refuses a config file others can read, before any request (exit 3)', async () => {
    const file = path.join(dir, 'svc', 'config.json');
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, JSON.stringify({ hub_url: 'https://127.0.0.1:1', api_key: 'svc_secret' }), {
      mode: 0o644,
    });
    fs.chmodSync(file, 0o644);
    const { code, err } = await run(['assets', 'ls']);
    expect(code).toBe(3);
    expect(err).toContain(`refusing to use ${file}`);
    expect(err).not.toContain('svc_secret');
  });

  it('says the hub cannot be reached (exit 5)', async () => {
    const { code, err } = await run(['whoami'], { SVC_HUB_URL: 'https://127.0.0.1:1', SVC_API_KEY: 'k' });
    expect(code).toBe(5);
    expect(err).toContain('cannot reach https://127.0.0.1:1');
    expect(err).not.toContain(' k ');
  });

  it('refuses a check of an unknown kind, and a run without a check, with exit 2', async () => {
    expect((await run(['checks', 'add', 'smtp.example.com:25', '--kind', 'smtp'])).code).toBe(2);
    expect((await run(['checks', 'run'])).code).toBe(2);
  });

  it('refuses bad arguments with exit 2: unknown commands and options, exec without a command or targets', async () => {
    expect((await run(['nope'])).code).toBe(2);
    expect((await run(['assets', 'ls', '--status', 'sleeping'])).code).toBe(2);
    const noCommand = await run(['exec', 'web-1']);
    expect(noCommand.code).toBe(2);
    expect(noCommand.err).toContain('no command: put it after --');
    const noTargets = await run(['exec', '--', 'uptime'], {
      SVC_HUB_URL: 'https://127.0.0.1:1',
      SVC_API_KEY: 'k',
    });
    expect(noTargets.code).toBe(2);
    expect(noTargets.err).toContain('no targets');
    const badType = await run(['events', 'tail', '--types', 'asset.exploded'], {
      SVC_HUB_URL: 'https://127.0.0.1:1',
      SVC_API_KEY: 'k',
    });
    expect(badType.code).toBe(2);
    expect(badType.err).toContain('unknown event type "asset.exploded"');
  });

  it('writes the failure as one JSON object on stderr under --json, stdout left empty', async () => {
    const { code, out, err } = await run(['--json', 'assets', 'show', 'x']);
    expect(code).toBe(3);
    expect(out).toBe('');
    expect(JSON.parse(err)).toEqual({
      error: {
        message: 'not signed in: no hub address',
        hint: 'run `svc login --hub https://<hub>:8443`, or set SVC_HUB_URL and SVC_API_KEY',
        exit_code: 3,
      },
    });
  });

  it('prints help and the version with exit 0', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['login', 'assets', 'exec', 'files', 'keys', 'events', 'completion']) {
      expect(help.out).toContain(command);
    }
    expect((await run(['--version'])).out.trim()).toBe('0.1.0');
  });
});

describe('svc completion', () => {
  it.each(['bash', 'zsh'] as const)('prints a %s script that names every command', async (shell) => {
    const { code, out } = await run(['completion', shell]);
    expect(code).toBe(0);
    expect(out).toContain('complete -o default -F _svc_complete svc');
    expect(out).toContain("'assets') words='ls show");
    expect(out).toContain("'assets ls|--status') words='online offline unknown'");
  });

  it('completes subcommands and option choices in bash', async () => {
    const script = path.join(dir, 'svc.bash');
    fs.writeFileSync(script, (await run(['completion', 'bash'])).out);
    const complete = (words: string[]) =>
      execFileSync(
        'bash',
        [
          '-c',
          `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${String(words.length - 1)}; _svc_complete; echo "\${COMPREPLY[*]}"`,
        ],
        { encoding: 'utf8' },
      ).trim();
    expect(complete(['svc', 'as'])).toBe('assets');
    expect(complete(['svc', 'assets', ''])).toBe('ls show blast-radius');
    expect(complete(['svc', '--json', 'keys', 'r'])).toBe('revoke');
    expect(complete(['svc', 'assets', 'ls', '--status', 'o'])).toBe('online offline');
  });
});
