/**
 * `svc-agent update self [--force]`. There is no built-in update server: an update source is opt-in with
 * SVC_AGENT_UPDATE_URL, the URL of a JSON manifest `{"version": "0.2.0", "package": "https://…/agent.tgz"}`.
 * A newer version (or --force) is installed with `npm install --global <package>` (argv, no shell).
 */
import { isLoopbackHost } from '../channel/client.js';
import { runCommand, type RunCommand } from '../platform/run-command.js';

export interface UpdateOptions {
  updateUrl: string | undefined;
  force: boolean;
  currentVersion: string;
  fetchText?: (url: string) => Promise<{ status: number; body: string }>;
  install?: (packageUrl: string) => Promise<void>;
}

export type UpdateOutcome = { status: 'no_source' | 'up_to_date' | 'installed' | 'error'; message: string };

function isAllowedUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  } catch {
    return false;
  }
}

async function defaultFetchText(url: string): Promise<{ status: number; body: string }> {
  const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(30_000) });
  return { status: response.status, body: (await response.text()).slice(0, 64 * 1024) };
}

function npmInstaller(run: RunCommand = runCommand): (packageUrl: string) => Promise<void> {
  return async (packageUrl) => {
    const result = await run('npm', ['install', '--global', packageUrl], { timeoutMs: 10 * 60_000 });
    if (result.code !== 0) throw new Error(`npm install failed: ${result.stderr.trim().slice(-500)}`);
  };
}

export async function updateSelf(options: UpdateOptions): Promise<UpdateOutcome> {
  const source = options.updateUrl?.trim();
  if (!source) {
    return {
      status: 'no_source',
      message: `no update source configured: this is svc-agent ${options.currentVersion}; set SVC_AGENT_UPDATE_URL to a release manifest to update`,
    };
  }
  if (!isAllowedUrl(source)) return { status: 'error', message: 'SVC_AGENT_UPDATE_URL must be an https URL' };
  let manifest: { version?: unknown; package?: unknown };
  try {
    const answer = await (options.fetchText ?? defaultFetchText)(source);
    if (answer.status !== 200)
      return { status: 'error', message: `the update source answered ${answer.status}` };
    manifest = JSON.parse(answer.body) as typeof manifest;
  } catch (error) {
    return { status: 'error', message: `cannot read the update manifest: ${(error as Error).message}` };
  }
  if (
    typeof manifest.version !== 'string' ||
    typeof manifest.package !== 'string' ||
    !isAllowedUrl(manifest.package)
  ) {
    return { status: 'error', message: 'the update manifest needs "version" and an https "package" URL' };
  }
  if (manifest.version === options.currentVersion && !options.force) {
    return {
      status: 'up_to_date',
      message: `svc-agent ${options.currentVersion} is up to date (use --force to reinstall)`,
    };
  }
  try {
    await (options.install ?? npmInstaller())(manifest.package);
  } catch (error) {
    return { status: 'error', message: (error as Error).message };
  }
  return {
    status: 'installed',
    message: `installed svc-agent ${manifest.version}; restart the service (systemctl restart svc-agent)`,
  };
}
