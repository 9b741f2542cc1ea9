/**
 * Argument handling commander leaves to us: the command after `--` of `svc exec`, its words joined for the
 * agent's shell, comma lists, and numbers with bounds. Pure, checked in the unit tier.
 */
import { CliError, exitCodes } from './exit-codes.js';

/**
 * `svc exec web-1 web-2 -- uname -a` → the arguments before `--` (what commander parses) and the command's
 * words after it. Only `exec` takes a command this way; for any other command `--` is left to commander.
 */
export function splitCommand(argv: readonly string[]): { cliArgs: string[]; commandWords: string[] | null } {
  const separator = argv.indexOf('--');
  if (separator < 0 || !argv.slice(0, separator).includes('exec')) {
    return { cliArgs: [...argv], commandWords: null };
  }
  return { cliArgs: argv.slice(0, separator), commandWords: argv.slice(separator + 1) };
}

const plainWord = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** A word as the POSIX shell reads it back unchanged. */
export function shellQuote(word: string): string {
  if (word !== '' && plainWord.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command line the agent's shell runs. One word is taken as a whole command line (`-- 'ls | wc -l'`);
 * several are quoted so the shell sees the same words the user's shell passed (`-- printf '%s\n' "a b"`).
 */
export function joinCommand(words: readonly string[]): string {
  if (words.length === 0) {
    throw new CliError('no command: put it after --, as in `svc exec web-1 -- uptime`', exitCodes.usage);
  }
  if (words.length === 1) return words[0] ?? '';
  return words.map(shellQuote).join(' ');
}

/** `a,b, c` → `['a', 'b', 'c']` (empty items dropped). */
export function parseList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** A whole number within bounds, or a usage error naming the option. */
export function parseInteger(value: string, option: string, min: number, max: number): number {
  if (!/^\d+$/.test(value.trim()))
    throw new CliError(`${option} must be a whole number, not "${value}"`, exitCodes.usage);
  const n = Number(value);
  if (n < min || n > max) {
    throw new CliError(`${option} must be between ${String(min)} and ${String(max)}`, exitCodes.usage);
  }
  return n;
}

/** A hub address: https:// (or http:// for a hub without TLS), no path; trailing slash dropped. */
export function parseHubUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`"${value}" is not a URL`, exitCodes.usage, 'give the hub as https://host:8443');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new CliError(`the hub address must start with https://, not ${url.protocol}`, exitCodes.usage);
  }
  if (url.username || url.password) {
    throw new CliError('the hub address must not carry a user or password', exitCodes.usage);
  }
  return url.origin;
}
