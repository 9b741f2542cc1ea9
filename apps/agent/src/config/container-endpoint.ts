/**
 * The container engine endpoint (`docker_endpoint` / `SVC_CONTAINER_SOCKET`): an absolute unix socket path,
 * a `unix://` URI, or `http(s)://host:port`. Anything else falls back to the engine's local socket.
 */
import path from 'node:path';

export type ContainerEndpoint = { kind: 'unix'; socketPath: string } | { kind: 'http'; url: string };

export const defaultDockerSocket = '/var/run/docker.sock';

function parseSocketPath(value: string): string | null {
  if (value.includes('\0') || !path.posix.isAbsolute(value)) return null;
  if (path.posix.normalize(value) !== value || value.endsWith('/')) return null;
  return value;
}

/** The endpoint, or null when the text is none of the accepted forms. */
export function parseContainerEndpoint(value: string): ContainerEndpoint | null {
  const text = value.trim();
  if (text.startsWith('/')) {
    const socketPath = parseSocketPath(text);
    return socketPath ? { kind: 'unix', socketPath } : null;
  }
  if (text.toLowerCase().startsWith('unix://')) {
    const socketPath = parseSocketPath(text.slice('unix://'.length));
    return socketPath ? { kind: 'unix', socketPath } : null;
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  // host:port only: no credentials, path, query or fragment, and the port spelled out.
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== ''))
    return null;
  if (!/:\d+\/?$/.test(text)) return null;
  const port = url.port || (url.protocol === 'http:' ? '80' : '443');
  return { kind: 'http', url: `${url.protocol}//${url.hostname}:${port}` };
}

export function formatContainerEndpoint(endpoint: ContainerEndpoint): string {
  return endpoint.kind === 'unix' ? endpoint.socketPath : endpoint.url;
}
