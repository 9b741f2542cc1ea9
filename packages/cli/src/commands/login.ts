/**
 * `svc login`, `svc logout`, `svc whoami`. Login checks the key against the hub (over a verified connection)
 * before it saves anything; the key comes from stdin, SVC_API_KEY or a prompt that does not echo, never from
 * an argument (which other users see in `ps`), and it is never printed.
 */
import readline from 'node:readline';
import { Writable } from 'node:stream';
import type { Command } from 'commander';
import { createClient } from '@svc/sdk';
import { parseHubUrl } from '../args.js';
import { readConfig, removeConfig, writeConfig, type CliConfig } from '../config.js';
import { readCaFile, type Context } from '../context.js';
import { CliError, exitCodes, isUntrustedCertificate } from '../exit-codes.js';
import { formatFields, formatTime } from '../format.js';
import { createTransport } from '../https-fetch.js';
import { fetchHubCa } from '../trust.js';

interface LoginOptions {
  caFingerprint?: string;
  keyStdin?: boolean;
}

/**
 * Questions on the terminal, answered line by line. Lines are queued as they come, so answers typed (or
 * pasted) ahead of their question are not lost; with `hidden`, what is typed is not echoed.
 */
function createPrompter(ctx: Context) {
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!muted) ctx.io.stderr.write(chunk);
      done();
    },
  });
  let rl: readline.Interface | null = null;
  const lines: string[] = [];
  const waiting: ((line: string | null) => void)[] = [];
  let ended = false;
  const open = () => {
    if (rl) return rl;
    rl = readline.createInterface({ input: ctx.io.stdin, output, terminal: true });
    rl.on('line', (line) => {
      const next = waiting.shift();
      if (next) next(line);
      else lines.push(line);
    });
    rl.on('close', () => {
      ended = true;
      for (const next of waiting.splice(0)) next(null);
    });
    return rl;
  };
  return {
    async ask(question: string, hidden: boolean): Promise<string> {
      const terminal = open();
      muted = false;
      terminal.setPrompt(question);
      terminal.prompt();
      muted = hidden;
      const queued = lines.shift();
      const answer =
        queued ?? (ended ? null : await new Promise<string | null>((resolve) => waiting.push(resolve)));
      muted = false;
      if (hidden) ctx.io.stderr.write('\n');
      if (answer === null) throw new CliError('no answer (end of input)', exitCodes.usage);
      return answer.trim();
    },
    close() {
      rl?.close();
    },
  };
}

type Prompter = ReturnType<typeof createPrompter>;

async function readStdin(ctx: Context): Promise<string> {
  let text = '';
  for await (const chunk of ctx.io.stdin) {
    text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    if (text.length > 4096) throw new CliError('stdin holds more than a key', exitCodes.usage);
  }
  return text.trim();
}

async function readKey(ctx: Context, options: LoginOptions, prompter: Prompter): Promise<string> {
  if (options.keyStdin) return readStdin(ctx);
  if (ctx.io.env.SVC_API_KEY) return ctx.io.env.SVC_API_KEY;
  if (ctx.io.stdinIsTty) return prompter.ask('API key: ', true);
  throw new CliError('no API key given', exitCodes.usage, 'pipe it with --key-stdin, or set SVC_API_KEY');
}

/** The CA to keep: --ca, none when the system trusts the hub, else the hub's own, checked (TOFU). */
async function trustFor(
  ctx: Context,
  hubUrl: string,
  caFile: string | undefined,
  options: LoginOptions,
  prompter: Prompter,
): Promise<string | undefined> {
  if (caFile) return readCaFile(caFile);
  if (!hubUrl.startsWith('https:')) return undefined;
  try {
    await createClient({ baseUrl: hubUrl, fetch: createTransport({ idleTimeoutMs: 15_000 }) }).call(
      'tls.info',
    );
    return undefined;
  } catch (error) {
    if (!isUntrustedCertificate(error)) throw error;
  }
  const pin = options.caFingerprint ?? null;
  const ca = await fetchHubCa(hubUrl, pin);
  if (pin === null) {
    if (!ctx.io.stdinIsTty || options.keyStdin) {
      throw new CliError(
        `${hubUrl} presents a certificate from its own CA, which this machine does not trust`,
        exitCodes.unreachable,
        'pin it with --ca-fingerprint <the "CA fingerprint" the hub logs at start-up>, or pass the CA file with --ca',
      );
    }
    ctx.note(`The hub's CA is not trusted by this machine. Its SHA-256 fingerprint:\n  ${ca.fingerprint}`);
    ctx.note('Compare it with the "CA fingerprint" line of the hub\'s start-up log.');
    const answer = await prompter.ask('Trust this CA for this hub? [y/N] ', false);
    if (!/^y(es)?$/i.test(answer))
      throw new CliError('not signed in: the CA was not trusted', exitCodes.auth);
  }
  return ca.pem;
}

export function registerLogin(program: Command, ctx: Context): void {
  program
    .command('login')
    .description(
      "sign in with an API key: checks it, then saves the hub, the key and the hub's CA (mode 0600)",
    )
    .option('--ca-fingerprint <sha256>', "the hub CA's fingerprint, to trust its own CA without a prompt")
    .option('--key-stdin', 'read the key from stdin (for scripts)')
    .action(async (options: LoginOptions, command: Command) => {
      const globals = ctx.globals(command);
      const file = ctx.configFile(command);
      const given = globals.hub ?? ctx.io.env.SVC_HUB_URL ?? readConfig(file)?.hub_url;
      if (!given) throw new CliError('which hub?', exitCodes.usage, 'svc login --hub https://<hub>:8443');
      const hubUrl = parseHubUrl(given);
      const prompter = createPrompter(ctx);
      let caPem: string | undefined;
      let apiKey: string;
      try {
        caPem = await trustFor(ctx, hubUrl, globals.ca ?? ctx.io.env.SVC_CA_FILE, options, prompter);
        apiKey = await readKey(ctx, options, prompter);
      } finally {
        prompter.close();
      }
      if (!apiKey) throw new CliError('the key is empty', exitCodes.usage);
      const client = createClient({
        baseUrl: hubUrl,
        apiKey,
        fetch: createTransport({ idleTimeoutMs: 15_000, ...(caPem ? { caPem } : {}) }),
      });
      const me = (await client.call('whoami')).data;
      const config: CliConfig = { hub_url: hubUrl, api_key: apiKey, ...(caPem ? { ca_pem: caPem } : {}) };
      writeConfig(file, config);
      if (globals.json) ctx.json({ hub_url: hubUrl, config: file, whoami: me });
      else
        ctx.note(`signed in to ${hubUrl} as ${me.key_name ?? me.auth_type} (${me.role}); saved in ${file}`);
    });

  program
    .command('logout')
    .description(
      'forget the saved hub and key (the key itself stays valid: revoke it with `svc keys revoke`)',
    )
    .action((_options: unknown, command: Command) => {
      const file = ctx.configFile(command);
      const removed = removeConfig(file);
      if (ctx.globals(command).json) ctx.json({ removed, config: file });
      else ctx.note(removed ? `removed ${file}` : 'not signed in');
    });

  program
    .command('whoami')
    .description('the key in use: its role, scopes and limits')
    .action(async (_options: unknown, command: Command) => {
      const { client, hubUrl } = ctx.connect(command);
      const me = (await client.call('whoami')).data;
      if (ctx.globals(command).json) {
        ctx.json(me);
        return;
      }
      ctx.out(
        formatFields([
          ['hub', hubUrl],
          ['key', me.key_name ? `${me.key_name} (${me.key_id ?? '?'})` : me.auth_type],
          ['role', me.role],
          ['scopes', me.scopes.join(',')],
          ['allowed assets', me.allowed_assets?.length ? me.allowed_assets.join(',') : 'all'],
          ['expires', formatTime(me.expires_at)],
          ['assets visible', String(me.available_assets)],
        ]),
      );
    });
}
