import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommandMissingError, type RunCommand } from '../platform/run-command.js';
import { createLogsHandlers, journalArgs, parseJournalJson } from './logs.js';

let dir: string;
let logRoot: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'svc-agent-logs-'));
  logRoot = path.join(dir, 'log');
  await mkdir(logRoot);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const noJournal = () => false;
const missing: RunCommand = (file) => Promise.reject(new CommandMissingError(file));

describe('file logs', () => {
  it('tails the last `limit` lines of a file under the log root', async () => {
    await writeFile(
      path.join(logRoot, 'app.log'),
      Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n') + '\n',
    );
    const logs = createLogsHandlers({ logRoot, isJournalAvailable: noJournal, runCommand: missing });
    const result = await logs['system.logs']({
      source: 'file',
      path: path.join(logRoot, 'app.log'),
      limit: 3,
    });
    expect(result).toEqual({
      source: 'file',
      truncated: true,
      entries: [
        { ts: null, source: 'app.log', priority: null, message: 'line 48' },
        { ts: null, source: 'app.log', priority: null, message: 'line 49' },
        { ts: null, source: 'app.log', priority: null, message: 'line 50' },
      ],
    });
  });

  it('filters by grep substring, smart case', async () => {
    await writeFile(
      path.join(logRoot, 'syslog'),
      'sshd: Accepted key\ncron: job ran\nsshd: FAILED password\nkernel: ok\n',
    );
    const logs = createLogsHandlers({ logRoot, isJournalAvailable: noJournal, runCommand: missing });
    // no path, no journal: the default file under the root
    const lower = await logs['system.logs']({ grep: 'failed' });
    expect(lower.entries.map((e) => e.message)).toEqual(['sshd: FAILED password']);
    const exact = await logs['system.logs']({ grep: 'Accepted', source: 'file' });
    expect(exact.entries.map((e) => e.message)).toEqual(['sshd: Accepted key']);
    expect(exact.truncated).toBe(false);
    expect((await logs['system.logs']({ grep: 'ACCEPTED', source: 'file' })).entries).toEqual([]);
  });

  it('refuses files outside the log root, also through a symlink or ..', async () => {
    const secret = path.join(dir, 'secret.txt');
    await writeFile(secret, 'top secret');
    await symlink(secret, path.join(logRoot, 'innocent.log'));
    const logs = createLogsHandlers({ logRoot, isJournalAvailable: noJournal, runCommand: missing });
    await expect(logs['system.logs']({ source: 'file', path: secret })).rejects.toMatchObject({
      code: 'invalid_path',
    });
    await expect(
      logs['system.logs']({ source: 'file', path: path.join(logRoot, 'innocent.log') }),
    ).rejects.toMatchObject({ code: 'invalid_path' });
    await expect(
      logs['system.logs']({ source: 'file', path: `${logRoot}/../secret.txt` }),
    ).rejects.toMatchObject({ code: 'invalid_path' });
    await expect(logs['system.logs']({ source: 'file', path: 'secret.txt' })).rejects.toMatchObject({
      code: 'invalid_path',
    });
  });

  it('refuses compressed files and directories, and says when a file is missing', async () => {
    await writeFile(path.join(logRoot, 'old.log.gz'), Buffer.from([0x1f, 0x8b]));
    await mkdir(path.join(logRoot, 'nginx'));
    const logs = createLogsHandlers({ logRoot, isJournalAvailable: noJournal, runCommand: missing });
    await expect(
      logs['system.logs']({ source: 'file', path: path.join(logRoot, 'old.log.gz') }),
    ).rejects.toMatchObject({ code: 'unsupported' });
    await expect(
      logs['system.logs']({ source: 'file', path: path.join(logRoot, 'nginx') }),
    ).rejects.toMatchObject({ code: 'is_directory' });
    await expect(
      logs['system.logs']({ source: 'file', path: path.join(logRoot, 'nope.log') }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(logs['system.logs']({})).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses a FIFO under the log root without opening it (an open would block or release its writer)', async () => {
    const fifo = path.join(logRoot, 'pipe.log');
    execFileSync('mkfifo', [fifo]);
    const logs = createLogsHandlers({ logRoot, isJournalAvailable: noJournal, runCommand: missing });
    let opens = 0;
    let done = false;
    // Succeeds only while someone holds the FIFO open for reading (or waits to): the handler, if it opened it.
    const probe = () => {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
        opens += 1;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw error;
      }
      if (!done) setImmediate(probe);
    };
    setImmediate(probe);
    const refusal = await logs['system.logs']({ source: 'file', path: fifo }).catch(
      (error: unknown) => error,
    );
    done = true;
    expect(opens).toBe(0);
    expect(refusal).toMatchObject({
      code: 'invalid_argument',
      message: expect.stringContaining('a FIFO') as string,
    });
  });

  it('answers unsupported when the journal is asked for and there is none', async () => {
    const logs = createLogsHandlers({ logRoot, isJournalAvailable: noJournal, runCommand: missing });
    await expect(logs['system.logs']({ source: 'journal' })).rejects.toMatchObject({ code: 'unsupported' });
  });
});

describe('journal', () => {
  it('builds the journalctl argv from the query', () => {
    expect(
      journalArgs({
        unit: 'ssh.service',
        since: '2026-01-02T03:04:05Z',
        until: '2026-01-02T04:00:00.000Z',
        priority: 3,
        grep: 'fail; rm -rf /',
        limit: 20,
      }),
    ).toEqual([
      '-o',
      'json',
      '--no-pager',
      '-q',
      '-n',
      '20',
      '-u',
      'ssh.service',
      '--since',
      '@1767323045',
      '--until',
      '@1767326400',
      '-p',
      '3',
      '--grep',
      'fail; rm -rf /',
    ]);
    expect(() => journalArgs({ since: 'yesterday-ish' })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }) as Error,
    );
    expect(() => journalArgs({ unit: '--system' })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }) as Error,
    );
  });

  it('parses journalctl -o json lines', () => {
    const output = [
      JSON.stringify({
        __REALTIME_TIMESTAMP: '1767323045123456',
        PRIORITY: '6',
        SYSLOG_IDENTIFIER: 'sshd',
        MESSAGE: 'Accepted publickey',
      }),
      JSON.stringify({
        __REALTIME_TIMESTAMP: '1767323046000000',
        PRIORITY: '3',
        _SYSTEMD_UNIT: 'x.service',
        MESSAGE: [104, 105],
      }),
      'not json',
    ].join('\n');
    expect(parseJournalJson(output)).toEqual([
      { ts: '2026-01-02T03:04:05.123Z', source: 'sshd', priority: 6, message: 'Accepted publickey' },
      { ts: '2026-01-02T03:04:06.000Z', source: 'x.service', priority: 3, message: 'hi' },
    ]);
  });

  it('runs journalctl when the journal exists', async () => {
    const calls: string[][] = [];
    const run: RunCommand = (file, args) => {
      calls.push([file, ...args]);
      return Promise.resolve({
        code: 0,
        stdout: JSON.stringify({ __REALTIME_TIMESTAMP: '1000000', MESSAGE: 'm', _COMM: 'c' }) + '\n',
        stderr: '',
      });
    };
    const logs = createLogsHandlers({ logRoot, isJournalAvailable: () => true, runCommand: run });
    const result = await logs['system.logs']({ limit: 5 });
    expect(result).toEqual({
      source: 'journal',
      truncated: false,
      entries: [{ ts: '1970-01-01T00:00:01.000Z', source: 'c', priority: null, message: 'm' }],
    });
    expect(calls[0]?.[0]).toBe('journalctl');
  });
});
