/**
 * The desktop tunnel's far end: a TCP connection to this machine's own VNC server. The target comes from the
 * agent's settings only (`vnc_port`), on 127.0.0.1, never from the hub: whatever a hub asks for, the agent
 * reaches nothing but its own loopback desktop, so a stolen hub cannot use the fleet as a proxy.
 */
import net from 'node:net';
import { AgentError } from './agent-error.js';

/** Where the desktop tunnel goes; the host is fixed. */
export interface DesktopTarget {
  readonly host: '127.0.0.1';
  readonly port: number;
}

export function desktopTarget(settings: { vncPort: number }): DesktopTarget {
  return { host: '127.0.0.1', port: settings.vncPort };
}

const connectTimeoutMs = 5_000;

/**
 * Opens the TCP connection to the desktop. Resolves once connected; refusals and timeouts become an
 * AgentError the hub can show ("no VNC server listening on 127.0.0.1:5900").
 */
export function openTcpStream(target: DesktopTarget, timeoutMs = connectTimeoutMs): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: target.host, port: target.port, noDelay: true });
    const where = `${target.host}:${target.port}`;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new AgentError('timeout', `the desktop at ${where} did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      reject(
        error.code === 'ECONNREFUSED'
          ? new AgentError('not_found', `no VNC server listening on ${where} (setting vnc_port)`)
          : new AgentError('failed', `cannot reach the desktop at ${where}: ${error.message}`),
      );
    });
  });
}
