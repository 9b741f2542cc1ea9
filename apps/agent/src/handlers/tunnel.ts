/**
 * The desktop tunnel's far end: a TCP connection to this machine's own VNC server. The target comes from the
 * agent's settings only (`vnc_port`), on 127.0.0.1, never from the hub: whatever a hub asks for, the agent
 * reaches nothing but its own loopback desktop, so a stolen hub cannot use the fleet as a proxy.
 */
import net from 'node:net';
import type { OpenedSource, SourceSink, StreamOpeners } from '../channel/streams.js';
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

/**
 * The socket as a stream source: its bytes go to the hub, the hub's to it; paused while the hub's window is
 * full (the socket is not read, so TCP flow control reaches the VNC server).
 */
function tcpSource(socket: net.Socket, sink: SourceSink): OpenedSource {
  let ended = false;
  const end = (reason: string) => {
    if (ended) return;
    ended = true;
    sink.end(reason);
  };
  socket.on('data', (chunk: Buffer) => {
    sink.output(chunk);
  });
  socket.on('end', () => {
    end('the desktop closed the connection');
  });
  socket.on('close', () => {
    end('the desktop closed the connection');
  });
  socket.on('error', (error) => {
    end(`the desktop connection failed: ${error.message}`);
  });
  return {
    write(chunk, done) {
      if (socket.destroyed) return;
      socket.write(chunk, () => {
        done();
      });
    },
    pause() {
      socket.pause();
    },
    resume() {
      socket.resume();
    },
    close() {
      ended = true;
      socket.destroy();
    },
  };
}

/** The `tcp` stream kind: always to this machine's own desktop, on the port from the settings. */
export function createTunnelOpeners(settings: { vncPort: number }): StreamOpeners {
  const target = desktopTarget(settings);
  return {
    tcp: {
      async open(_params, sink) {
        const socket = await openTcpStream(target);
        return { info: { port: target.port }, source: tcpSource(socket, sink) };
      },
    },
  };
}
