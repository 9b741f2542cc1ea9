/**
 * A real container engine for tests: Debian's podman serving the Docker Engine API on a unix socket in a
 * temporary directory (`podman system service`), its storage there too, with runc (crun refuses some
 * sandboxes' cgroups). Images come from a busybox-static rootfs tarball (`podman import`): no registry, no
 * network. Containers get explicit ulimits within the sandbox's own and no network namespace.
 *
 * `podmanMissing()` says why the tests must skip (no podman, runc or static busybox); CI installs all three.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const busyboxPaths = ['/bin/busybox', '/usr/bin/busybox'];
const toolPaths = (name: string) => [
  `/usr/bin/${name}`,
  `/usr/sbin/${name}`,
  `/bin/${name}`,
  `/sbin/${name}`,
];

function findExecutable(candidates: readonly string[]): string | null {
  for (const candidate of candidates) {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // next
    }
  }
  return null;
}

/** Why a real engine cannot run here, or null when it can. */
export function podmanMissing(): string | null {
  if (process.platform !== 'linux') return 'podman tests run on Linux only';
  if (!findExecutable(toolPaths('podman'))) return 'podman is not installed (apt-get install podman)';
  if (!findExecutable(toolPaths('runc'))) return 'runc is not installed (apt-get install runc)';
  if (!findExecutable(busyboxPaths)) return 'busybox is not installed (apt-get install busybox-static)';
  return null;
}

export interface PodmanContainerSpec {
  name: string;
  tty?: boolean;
  labels?: Record<string, string>;
  /** Shell script run by busybox sh. */
  script: string;
  start?: boolean;
}

export interface PodmanEngine {
  readonly socketPath: string;
  readonly image: string;
  /** Runs the podman CLI on this engine's storage; resolves with stdout. */
  podman(args: readonly string[]): Promise<string>;
  /** Creates (and by default starts) a container from the busybox image; resolves with its full id. */
  createContainer(spec: PodmanContainerSpec): Promise<string>;
  close(): Promise<void>;
}

function ping(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.request({ socketPath, path: '/_ping', method: 'GET', timeout: 1000 }, (res) => {
      res.resume();
      res.on('end', () => {
        resolve(res.statusCode === 200);
      });
    });
    req.on('error', () => {
      resolve(false);
    });
    req.on('timeout', () => {
      req.destroy();
    });
    req.end();
  });
}

/** Starts the engine in `dir` (which it owns until `close`) and imports the busybox image. */
export async function startPodman(dir: string): Promise<PodmanEngine> {
  const podmanPath = findExecutable(toolPaths('podman'));
  const busybox = findExecutable(busyboxPaths);
  if (!podmanPath || !busybox) throw new Error(podmanMissing() ?? 'podman is missing');
  const socketPath = path.join(dir, 'podman.sock');
  const global = [
    '--root',
    path.join(dir, 'root'),
    '--runroot',
    path.join(dir, 'runroot'),
    '--runtime',
    'runc',
    '--cgroup-manager',
    'cgroupfs',
    '--events-backend',
    'file',
  ];
  const podman = async (args: readonly string[]) =>
    (await run(podmanPath, [...global, ...args], { timeout: 60_000, maxBuffer: 8 * 1024 * 1024 })).stdout;

  const service: ChildProcess = spawn(
    podmanPath,
    [...global, 'system', 'service', '--time=0', `unix://${socketPath}`],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let serviceErrors = '';
  service.stderr?.on('data', (chunk: Buffer) => {
    if (serviceErrors.length < 8192) serviceErrors += chunk.toString('utf8');
  });

  const stopService = async () => {
    if (service.exitCode !== null || service.signalCode !== null) return;
    const exited = new Promise<boolean>((resolve) => {
      service.once('exit', () => {
        resolve(true);
      });
    });
    if (service.pid !== undefined) process.kill(service.pid, 'SIGTERM');
    const grace = new Promise<boolean>((resolve) => {
      setTimeout(() => {
        resolve(false);
      }, 5_000).unref();
    });
    if (!(await Promise.race([exited, grace])) && service.pid !== undefined)
      process.kill(service.pid, 'SIGKILL');
  };

  try {
    const deadline = Date.now() + 20_000;
    while (!(await ping(socketPath))) {
      if (service.exitCode !== null) throw new Error(`podman system service exited: ${serviceErrors}`);
      if (Date.now() > deadline) throw new Error(`podman did not answer on ${socketPath}: ${serviceErrors}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // A root filesystem of one static busybox and its applets' links, as a tarball podman imports.
    const rootfs = path.join(dir, 'rootfs');
    fs.mkdirSync(path.join(rootfs, 'bin'), { recursive: true });
    fs.mkdirSync(path.join(rootfs, 'tmp'), { recursive: true });
    fs.copyFileSync(busybox, path.join(rootfs, 'bin', 'busybox'));
    fs.chmodSync(path.join(rootfs, 'bin', 'busybox'), 0o755);
    for (const applet of ['sh', 'echo', 'sleep', 'cat', 'printf']) {
      fs.symlinkSync('busybox', path.join(rootfs, 'bin', applet));
    }
    const tarball = path.join(dir, 'rootfs.tar');
    await run('tar', ['-C', rootfs, '-cf', tarball, '.'], { timeout: 30_000 });
    const image = 'localhost/svc-test-busybox:latest';
    await podman(['import', '--quiet', tarball, image]);

    return {
      socketPath,
      image,
      podman,
      async createContainer(spec) {
        const args = [
          'create',
          '--name',
          spec.name,
          '--ulimit',
          'nofile=1024:1024',
          '--ulimit',
          'nproc=1024:1024',
          '--network',
          'none',
          ...(spec.tty ? ['--tty'] : []),
          ...Object.entries(spec.labels ?? {}).flatMap(([k, v]) => ['--label', `${k}=${v}`]),
          image,
          '/bin/sh',
          '-c',
          spec.script,
        ];
        const id = (await podman(args)).trim();
        if (spec.start ?? true) await podman(['start', id]);
        return id;
      },
      async close() {
        await podman(['rm', '--all', '--force', '--time', '0']).catch(() => '');
        await podman(['system', 'reset', '--force']).catch(() => '');
        await stopService();
      },
    };
  } catch (error) {
    await stopService();
    throw error;
  }
}
