/**
 * What every command shares: the process's streams and environment (passed in, so tests drive the CLI
 * without a process), the global options, and the connection to the hub made from them.
 *
 * Where the connection comes from, first found wins: `--hub` / `--ca` flags, then SVC_HUB_URL, SVC_API_KEY and
 * SVC_CA_FILE, then the config file `svc login` wrote. The config's key and CA are used only for the hub
 * they were saved for: `--hub` pointing elsewhere never receives that key.
 */
import fs from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import type { Command } from 'commander';
import { createClient, type SvcClient } from '@svc/sdk';
import { configPath, readConfig } from './config.js';
import { CliError, exitCodes, type ExitCode } from './exit-codes.js';
import { parseHubUrl } from './args.js';
import { createTransport } from './https-fetch.js';
import { parseCaCertificate } from './trust.js';

export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  env: Readonly<Record<string, string | undefined>>;
  /** Whether stdin and stderr are terminals: prompts and the progress line only there. */
  stdinIsTty: boolean;
  stderrIsTty: boolean;
  /** SIGINT as an abort signal (Ctrl-C); tests pass their own. */
  interrupt: AbortSignal;
}

interface GlobalOptions {
  hub?: string;
  ca?: string;
  config?: string;
  json?: boolean;
}

interface Connection {
  hubUrl: string;
  apiKey: string;
  caPem: string | undefined;
  client: SvcClient;
}

export interface Context {
  io: CliIo;
  globals(command: Command): GlobalOptions;
  /** The config file's path for this run. */
  configFile(command: Command): string;
  /** The hub's address alone (`--hub`, SVC_HUB_URL, the config), for error messages; null when none. */
  hubUrlHint(): string | null;
  connect(command: Command, options?: { idleTimeoutMs?: number }): Connection;
  /** A line on stdout. */
  out(text: string): void;
  /** A line on stderr. */
  note(text: string): void;
  /** One JSON document (or one NDJSON line) on stdout. */
  json(value: unknown): void;
  /** The exit code when the command ends without an error (default 0). */
  exitWith(code: ExitCode): void;
  readonly exitCode: ExitCode;
}

export function readCaFile(file: string): string {
  let pem: string;
  try {
    pem = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read the CA file ${file}: ${(error as Error).message}`, exitCodes.usage);
  }
  parseCaCertificate(pem, file);
  return pem;
}

export function createContext(io: CliIo): Context {
  const line = (stream: Writable, text: string) => stream.write(text.endsWith('\n') ? text : `${text}\n`);
  let lastHub: string | null = null;
  let exitCode: ExitCode = exitCodes.ok;
  const context: Context = {
    io,
    globals: (command) => command.optsWithGlobals<GlobalOptions>(),
    configFile: (command) => configPath(context.globals(command).config, io.env),
    hubUrlHint: () => lastHub,
    connect(command, options = {}) {
      const globals = context.globals(command);
      const explicitHub = globals.hub ?? io.env.SVC_HUB_URL;
      if (explicitHub) lastHub = parseHubUrl(explicitHub);
      const config = readConfig(context.configFile(command));
      const hubUrl = explicitHub ? parseHubUrl(explicitHub) : config ? parseHubUrl(config.hub_url) : null;
      if (!hubUrl) {
        throw new CliError(
          'not signed in: no hub address',
          exitCodes.auth,
          'run `svc login --hub https://<hub>:8443`, or set SVC_HUB_URL and SVC_API_KEY',
        );
      }
      lastHub = hubUrl;
      const saved = config && parseHubUrl(config.hub_url) === hubUrl ? config : null;
      const apiKey = io.env.SVC_API_KEY || saved?.api_key;
      if (!apiKey) {
        throw new CliError(
          `no API key for ${hubUrl}`,
          exitCodes.auth,
          `run \`svc login --hub ${hubUrl}\`, or set SVC_API_KEY`,
        );
      }
      const caFile = globals.ca ?? io.env.SVC_CA_FILE;
      const caPem = caFile ? readCaFile(caFile) : saved?.ca_pem;
      const client = createClient({
        baseUrl: hubUrl,
        apiKey,
        fetch: createTransport({
          idleTimeoutMs: options.idleTimeoutMs ?? 60_000,
          ...(caPem ? { caPem } : {}),
        }),
      });
      return { hubUrl, apiKey, caPem, client };
    },
    out: (text) => line(io.stdout, text),
    note: (text) => line(io.stderr, text),
    json: (value) => io.stdout.write(`${JSON.stringify(value)}\n`),
    exitWith: (code) => {
      exitCode = code;
    },
    get exitCode() {
      return exitCode;
    },
  };
  return context;
}
