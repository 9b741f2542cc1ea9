/**
 * `svc-agent settings test docker`: `/_ping` then `/version` on the configured container engine endpoint, so
 * the answer says what was reached (engine and API version) or why nothing was.
 */
import type { ContainerEndpoint } from '../config/container-endpoint.js';
import { createDockerEngine } from '../platform/docker-engine.js';

export type PingOutcome =
  { ok: true; engineVersion: string; apiVersion: string; os: string } | { ok: false; reason: string };

/**
 * Podman answers `/version` by asking its helpers theirs (conmon, the OCI runtime): seconds on a busy machine,
 * where 5 s once ran out while the engine was fine.
 */
const defaultTimeoutMs = 15_000;

export async function pingContainerEndpoint(
  endpoint: ContainerEndpoint,
  timeoutMs = defaultTimeoutMs,
): Promise<PingOutcome> {
  const engine = createDockerEngine(endpoint, timeoutMs);
  try {
    const { apiVersion } = await engine.ping();
    const version = await engine.version();
    return {
      ok: true,
      engineVersion: version.version || 'unknown',
      apiVersion: version.api_version || apiVersion || 'unknown',
      os: version.os,
    };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}
