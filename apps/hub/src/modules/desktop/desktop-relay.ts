/**
 * A desktop session's relay (decision 0030): the console's WebSocket (binary RFB, noVNC) joined to a `tcp`
 * channel stream to the machine's own VNC server. Flow control end to end: the agent's output is
 * acknowledged only once the WebSocket has written it, so a browser that stops reading stops the agent
 * reading the desktop (the hub holds at most one window per session); the console's input goes out while the
 * agent's window has room, and a console that sends more than the input queue holds (far beyond any pointer
 * and key traffic) is closed with a reason. The recorder, when recording is on, sees both directions.
 */
import type { StreamEnd, AgentStreamHandle, OpenStreamOptions } from '../../agents/agent-gateway.js';
import { closeFrameReason } from '../../http/upgrade.js';
import { sessionCloseCodes, type DesktopRecorder } from '@svc/protocol';
import type WebSocket from 'ws';

/** Close codes the console sees (RFC 6455 4000–4999 for ours). */
export const desktopCloseCodes = {
  /** The desktop (or the agent) ended the connection. */
  ended: 4000,
  /** The console sent something other than binary RFB, or too much of it. */
  protocol: 1003,
  tooBig: 1009,
  flooding: 4008,
  /** `policy.interactive_enabled` was turned off: the code terminals close with too. */
  policyDisabled: sessionCloseCodes.policyDisabled,
  /** The caller's key changed and may no longer use the session (decision 0049), as for terminals. */
  accessWithdrawn: sessionCloseCodes.accessWithdrawn,
} as const;

/** The largest message the console may send: RFB client messages are small (ClientCutText aside). */
const desktopMaxMessageBytes = 256 * 1024;

export interface DesktopRelayOptions {
  socket: WebSocket;
  /** Opens the `tcp` stream on the asset's agent with the relay's callbacks. */
  openStream(
    callbacks: Pick<OpenStreamOptions<'tcp'>, 'onData' | 'onClose'>,
  ): Promise<AgentStreamHandle<'tcp'>>;
  recorder?: DesktopRecorder | null;
  /** Once, when the relay ended (either side), with who ended it and why. */
  onEnd?(end: StreamEnd): void;
}

export interface DesktopRelay {
  readonly stream: AgentStreamHandle<'tcp'>;
  /** Ends the relay; the console is closed with `code` (4000, the desktop ended, when absent). */
  close(reason: string, code?: number): void;
}

/**
 * Opens the stream and relays until either side ends. Rejects as openStream does (offline, refused…);
 * the caller answers the console then.
 */
export async function startDesktopRelay(options: DesktopRelayOptions): Promise<DesktopRelay> {
  const { socket, recorder } = options;
  const state = { ended: false };
  let handle: AgentStreamHandle<'tcp'> | null = null;
  const early: Buffer[] = [];

  const end = (result: StreamEnd, code: number) => {
    if (state.ended) return;
    state.ended = true;
    if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING)
      socket.close(code, closeFrameReason(result.reason));
    if (handle && !handle.closed) handle.close(result.reason);
    options.onEnd?.(result);
  };

  const toConsole = (chunk: Buffer) => {
    if (state.ended) return;
    recorder?.fromServer(chunk);
    socket.send(chunk, { binary: true }, (error) => {
      // Acknowledge what the WebSocket wrote: the agent may send that much more.
      if (!error && handle && !handle.closed) handle.ack(chunk.length);
    });
  };

  socket.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
    if (state.ended) return;
    if (!isBinary) {
      end(
        { reason: 'the desktop takes binary RFB messages only', by: 'hub', exit: null },
        desktopCloseCodes.protocol,
      );
      return;
    }
    const chunk = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    if (chunk.length > desktopMaxMessageBytes) {
      end(
        { reason: `a message over ${desktopMaxMessageBytes} bytes`, by: 'hub', exit: null },
        desktopCloseCodes.tooBig,
      );
      return;
    }
    recorder?.fromClient(chunk);
    if (!handle) {
      early.push(chunk);
      return;
    }
    if (!handle.write(chunk)) {
      end(
        { reason: 'the console sent faster than the desktop takes', by: 'hub', exit: null },
        desktopCloseCodes.flooding,
      );
    }
  });
  socket.on('close', () => {
    end({ reason: 'the console disconnected', by: 'hub', exit: null }, 1000);
  });
  socket.on('error', () => {
    end({ reason: 'the console connection failed', by: 'hub', exit: null }, 1011);
  });

  handle = await options.openStream({
    onData: toConsole,
    onClose: (result) => {
      end(result, desktopCloseCodes.ended);
    },
  });
  if (state.ended) {
    handle.close('the console disconnected');
  } else {
    for (const chunk of early.splice(0)) handle.write(chunk);
  }
  const opened = handle;
  return {
    stream: opened,
    close(reason, code = desktopCloseCodes.ended) {
      end({ reason, by: 'hub', exit: null }, code);
    },
  };
}
