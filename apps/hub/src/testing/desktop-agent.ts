/**
 * A desktop agent for tests: a bare channel connection (hello, welcome) with the agent's real stream host and
 * `tcp` opener, pointed at a test VNC server, as the agent runs them.
 */
import WebSocket from 'ws';
import { agentChannelPath, agentProtocolVersion } from '@svc/protocol';
import { defaultHello } from '@svc/testkit';
import { StreamHost } from '../../../agent/src/channel/streams.js';
import { createTunnelOpeners } from '../../../agent/src/handlers/tunnel.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** Connects to the hub at `base` (ws://host:port) and resolves once welcomed. */
export async function connectDesktopAgent(
  base: string,
  credential: string,
  vncPort: number,
): Promise<WebSocket> {
  const agent = new WebSocket(`${base}${agentChannelPath}`, {
    headers: { authorization: `Bearer ${credential}` },
  });
  const host = new StreamHost({
    logger: silent,
    openers: createTunnelOpeners({ vncPort }),
    send: (text) => {
      agent.send(text);
    },
  });
  const welcomed = new Promise<void>((resolve) => {
    agent.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as { type: string; payload: unknown };
      if (frame.type === 'welcome') resolve();
      else if (frame.type.startsWith('stream.')) host.handle(frame.type, frame.payload);
    });
  });
  await new Promise((resolve, reject) => {
    agent.once('open', resolve);
    agent.once('error', reject);
  });
  agent.send(JSON.stringify({ v: agentProtocolVersion, type: 'hello', id: 'h1', payload: defaultHello() }));
  await welcomed;
  return agent;
}
