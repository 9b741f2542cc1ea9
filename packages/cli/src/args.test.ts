import { describe, expect, it } from 'vitest';
import { joinCommand, parseHubUrl, parseInteger, parseList, shellQuote, splitCommand } from './args.js';
import { CliError, exitCodes } from './exit-codes.js';

describe('splitCommand', () => {
  it('takes the words after -- of exec as the command, the rest for commander', () => {
    expect(splitCommand(['exec', 'web-1', 'web-2', '--', 'uname', '-a'])).toEqual({
      cliArgs: ['exec', 'web-1', 'web-2'],
      commandWords: ['uname', '-a'],
    });
    expect(splitCommand(['--json', 'exec', '--group', 'db', '--', 'ls', '--', 'x'])).toEqual({
      cliArgs: ['--json', 'exec', '--group', 'db'],
      commandWords: ['ls', '--', 'x'],
    });
  });

  it('leaves -- to commander for other commands, and gives no command when exec has none', () => {
    expect(splitCommand(['files', 'get', 'a', '--', '-odd-name'])).toEqual({
      cliArgs: ['files', 'get', 'a', '--', '-odd-name'],
      commandWords: null,
    });
    expect(splitCommand(['exec', 'web-1'])).toEqual({ cliArgs: ['exec', 'web-1'], commandWords: null });
  });
});

describe('joinCommand', () => {
  it('runs one word as a whole command line', () => {
    expect(joinCommand(['ls /tmp | wc -l'])).toBe('ls /tmp | wc -l');
  });

  it('quotes several words so the shell sees them as the user passed them', () => {
    expect(joinCommand(['printf', '%s\\n', 'a b', "it's", '$HOME'])).toBe(
      `printf '%s\\n' 'a b' 'it'\\''s' '$HOME'`,
    );
    expect(shellQuote('')).toBe("''");
    expect(shellQuote('/usr/bin/env')).toBe('/usr/bin/env');
  });

  it('refuses an empty command as a usage error', () => {
    expect(() => joinCommand([])).toThrow(CliError);
    try {
      joinCommand([]);
    } catch (error) {
      expect((error as CliError).exitCode).toBe(exitCodes.usage);
    }
  });
});

describe('parseList, parseInteger, parseHubUrl', () => {
  it('splits comma lists and drops empty items', () => {
    expect(parseList(' a, b,,c ')).toEqual(['a', 'b', 'c']);
  });

  it('takes whole numbers within bounds, naming the option otherwise', () => {
    expect(parseInteger('30', '--timeout', 1, 3600)).toBe(30);
    expect(() => parseInteger('0', '--timeout', 1, 3600)).toThrow('--timeout must be between 1 and 3600');
    expect(() => parseInteger('1.5', '--timeout', 1, 3600)).toThrow('--timeout must be a whole number');
  });

  it('keeps the origin of an https or http hub and refuses anything else', () => {
    expect(parseHubUrl('https://hub.example:8443/')).toBe('https://hub.example:8443');
    expect(parseHubUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(() => parseHubUrl('ftp://hub')).toThrow('must start with https://');
    expect(() => parseHubUrl('hub:8443')).toThrow();
    expect(() => parseHubUrl('https://user:pw@hub')).toThrow('must not carry a user');
  });
});
