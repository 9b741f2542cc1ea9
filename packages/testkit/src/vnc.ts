/**
 * A real VNC server for tests: Debian's TigerVNC (`Xtigervnc`, an X server with the VNC extension) on a free
 * display, listening on a loopback port with VNC password authentication, its root window painted one solid
 * colour (`xsetroot`) so a test can check the pixels it receives. Stopped with SIGTERM, its files removed.
 *
 * `vncMissing()` says why the tests must skip; CI installs tigervnc-standalone-server, tigervnc-tools and
 * x11-xserver-utils (.ci/run).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, spawnLocal, waitListening } from './local-process.js';

const run = promisify(execFile);

const tools = {
  server: '/usr/bin/Xtigervnc',
  passwd: '/usr/bin/tigervncpasswd',
  paint: '/usr/bin/xsetroot',
} as const;

/** Why a real VNC server cannot run here, or null when it can. */
export function vncMissing(): string | null {
  if (process.platform !== 'linux') return 'VNC tests run on Linux only';
  if (!isExecutable(tools.server))
    return 'Xtigervnc is not installed (apt-get install tigervnc-standalone-server)';
  if (!isExecutable(tools.passwd)) return 'tigervncpasswd is not installed (apt-get install tigervnc-tools)';
  if (!isExecutable(tools.paint)) return 'xsetroot is not installed (apt-get install x11-xserver-utils)';
  return null;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface VncServerOptions {
  /** VNC passwords are 1 to 8 characters (the protocol uses the first 8). */
  password?: string;
  /** The root window's colour. */
  colour?: readonly [number, number, number];
  width?: number;
  height?: number;
}

export interface VncServer {
  readonly port: number;
  readonly display: number;
  readonly password: string;
  readonly colour: readonly [number, number, number];
  readonly width: number;
  readonly height: number;
  close(): Promise<void>;
}

/** A display number no X server holds (its lock file and socket absent). */
function freeDisplay(): number {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const display = 100 + Math.floor(Math.random() * 800);
    if (!fs.existsSync(`/tmp/.X${display}-lock`) && !fs.existsSync(`/tmp/.X11-unix/X${display}`))
      return display;
  }
  throw new Error('no free X display number');
}

function hex(colour: readonly [number, number, number]): string {
  return `#${colour.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}

export async function startVncServer(options: VncServerOptions = {}): Promise<VncServer> {
  const missing = vncMissing();
  if (missing) throw new Error(missing);
  const password = options.password ?? 'svc-test';
  const colour = options.colour ?? ([42, 157, 143] as const);
  const width = options.width ?? 320;
  const height = options.height ?? 200;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-vnc-'));
  const passwdFile = path.join(dir, 'passwd');
  const obfuscated = await new Promise<Buffer>((resolve, reject) => {
    const child = execFile(tools.passwd, ['-f'], { encoding: 'buffer' }, (error, stdout) => {
      if (error) reject(new Error(`tigervncpasswd failed: ${error.message}`));
      else resolve(stdout);
    });
    child.stdin?.end(`${password}\n`);
  });
  fs.writeFileSync(passwdFile, obfuscated, { mode: 0o600 });

  // Two tries: the port is free when picked, another process may take it before the server binds it.
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const display = freeDisplay();
    const port = await freePort();
    const log = fs.openSync(path.join(dir, `server-${attempt}.log`), 'w');
    const server = spawnLocal(
      tools.server,
      [
        `:${display}`,
        '-rfbport',
        String(port),
        '-localhost',
        '-nolisten',
        'tcp',
        '-rfbauth',
        passwdFile,
        '-SecurityTypes',
        'VncAuth',
        '-AlwaysShared',
        '-geometry',
        `${width}x${height}`,
        '-depth',
        '24',
      ],
      { outputFd: log },
    );
    fs.closeSync(log);
    try {
      await waitListening(server, port, 'Xtigervnc');
    } catch {
      await server.stop('SIGKILL', 0);
      continue;
    }
    await run(tools.paint, ['-solid', hex(colour)], { env: { ...process.env, DISPLAY: `:${display}` } });
    const close = async () => {
      await server.stop('SIGTERM', 3_000);
      fs.rmSync(dir, { recursive: true, force: true });
    };
    return { port, display, password, colour, width, height, close };
  }
  const logs = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
    .join('\n');
  fs.rmSync(dir, { recursive: true, force: true });
  throw new Error(`Xtigervnc did not start:\n${logs.slice(-2000)}`);
}

/**
 * The VncAuth response: the 16-byte challenge encrypted with DES-ECB under the password (8 bytes, zero
 * padded, each byte's bits reversed). Node's default OpenSSL provider has no DES, so this runs in a child
 * Node with the legacy provider; the hub never computes it (it relays bytes; the console uses noVNC's).
 */
export async function vncAuthResponse(challenge: Buffer, password: string): Promise<Buffer> {
  const key = Buffer.alloc(8);
  Buffer.from(password, 'latin1').copy(key, 0, 0, 8);
  for (let i = 0; i < 8; i += 1) {
    let byte = key[i] ?? 0;
    let reversed = 0;
    for (let bit = 0; bit < 8; bit += 1) {
      reversed = (reversed << 1) | (byte & 1);
      byte >>= 1;
    }
    key[i] = reversed;
  }
  const script =
    "const c=require('node:crypto');const [k,d]=process.argv.slice(1);" +
    "const x=c.createCipheriv('des-ecb',Buffer.from(k,'hex'),null);x.setAutoPadding(false);" +
    "process.stdout.write(Buffer.concat([x.update(Buffer.from(d,'hex')),x.final()]).toString('hex'))";
  const { stdout } = await run(process.execPath, [
    '--openssl-legacy-provider',
    '-e',
    script,
    key.toString('hex'),
    challenge.toString('hex'),
  ]);
  return Buffer.from(stdout.trim(), 'hex');
}
