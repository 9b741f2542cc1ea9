/**
 * The settings file (JSON, default /etc/svc-agent/settings.json): read, and written atomically with mode
 * 0600 because it holds the agent credential. Writes go through a temporary file in the same directory and a
 * rename, so a crash leaves either the old or the new file, never half of one.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, readFile, rename, unlink } from '../platform/fs-async.js';
import path from 'node:path';

export const defaultSettingsPath = '/etc/svc-agent/settings.json';

/** `--config`, else SVC_AGENT_CONFIG, else the default. */
export function settingsPathFrom(
  option: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const chosen = option ?? (env.SVC_AGENT_CONFIG?.trim() || defaultSettingsPath);
  return path.resolve(chosen);
}

export type SettingsFileContent = Record<string, unknown>;

export interface SettingsFileRead {
  /** The parsed content; null when the file does not exist. */
  content: unknown;
  /** Why the file could not be used (unreadable, not JSON); the agent then runs on env and defaults. */
  error: string | null;
}

export async function readSettingsFile(file: string): Promise<SettingsFileRead> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { content: null, error: null };
    return { content: null, error: `cannot read ${file}: ${(error as Error).message}` };
  }
  try {
    return { content: JSON.parse(text) as unknown, error: null };
  } catch {
    return { content: null, error: `${file} is not valid JSON` };
  }
}

export async function writeSettingsFile(file: string, content: SettingsFileContent): Promise<void> {
  // File handles (for fsync) are node:fs/promises', loaded by the first write, not by an idle agent's start.
  const { open } = process.getBuiltinModule('node:fs/promises');
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temporary = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(content, null, 2)}\n`, 'utf8');
    await handle.chmod(0o600);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await handle.close();
  try {
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  // Make the rename itself durable.
  const dirHandle = await open(dir, constants.O_RDONLY).catch(() => null);
  if (dirHandle) {
    await dirHandle.sync().catch(() => undefined);
    await dirHandle.close();
  }
}

const queues = new Map<string, Promise<unknown>>();

/**
 * Read-modify-write of some keys, serialized per file within this process (a credential rotation and a
 * `settings set` never lose each other's change). `null` removes a key.
 */
export async function updateSettingsFile(
  file: string,
  patch: Record<string, unknown>,
): Promise<SettingsFileContent> {
  const previous = queues.get(file) ?? Promise.resolve();
  const next = previous
    .catch(() => undefined)
    .then(async () => {
      const current = await readSettingsFile(file);
      if (current.error) throw new Error(current.error);
      const base =
        current.content && typeof current.content === 'object' && !Array.isArray(current.content)
          ? (current.content as SettingsFileContent)
          : {};
      const removed = new Set(Object.keys(patch).filter((key) => patch[key] === null));
      const updated: SettingsFileContent = Object.fromEntries(
        [...Object.entries(base), ...Object.entries(patch)].filter(([key]) => !removed.has(key)),
      );
      await writeSettingsFile(file, updated);
      return updated;
    });
  queues.set(file, next);
  try {
    return await next;
  } finally {
    if (queues.get(file) === next) queues.delete(file);
  }
}
