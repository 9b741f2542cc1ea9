import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configPath, readConfig, removeConfig, unsafeModeProblem, writeConfig } from './config.js';
import { CliError, exitCodes } from './exit-codes.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-config-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const config = { hub_url: 'https://hub:8443', api_key: 'svc_k_secret' };

describe('the config file', () => {
  it('lives under XDG_CONFIG_HOME, else ~/.config, unless named', () => {
    expect(configPath(undefined, { XDG_CONFIG_HOME: '/x', HOME: '/home/a' })).toBe('/x/svc/config.json');
    expect(configPath(undefined, { HOME: '/home/a' })).toBe('/home/a/.config/svc/config.json');
    expect(configPath('/etc/svc.json', { XDG_CONFIG_HOME: '/x' })).toBe('/etc/svc.json');
    expect(configPath(undefined, { SVC_CONFIG: '/c.json', HOME: '/h' })).toBe('/c.json');
  });

  it('is written with mode 0600 in a 0700 directory, and read back', () => {
    const file = path.join(dir, 'svc', 'config.json');
    writeConfig(file, config);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(readConfig(file)).toEqual(config);
    expect(removeConfig(file)).toBe(true);
    expect(readConfig(file)).toBeNull();
  });

  it('is refused when its group or everyone may read it, saying how to fix it', () => {
    const file = path.join(dir, 'config.json');
    writeConfig(file, config);
    fs.chmodSync(file, 0o644);
    let caught: unknown;
    try {
      readConfig(file);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CliError);
    expect((caught as CliError).exitCode).toBe(exitCodes.auth);
    expect((caught as CliError).message).toContain('every user on this machine (mode 0644)');
    expect((caught as CliError).message).not.toContain('svc_k_secret');
    expect((caught as CliError).hint).toContain(`chmod 600 ${file}`);
  });

  it('names who may read it', () => {
    expect(unsafeModeProblem(0o100600)).toBeNull();
    expect(unsafeModeProblem(0o640)).toBe('is open to its group (mode 0640)');
    expect(unsafeModeProblem(0o604)).toBe('is open to every user on this machine (mode 0604)');
  });

  it('is refused when it is not a svc config', () => {
    const file = path.join(dir, 'config.json');
    fs.writeFileSync(file, '{"hub": 1}', { mode: 0o600 });
    expect(() => readConfig(file)).toThrow('is not a svc config');
  });
});
