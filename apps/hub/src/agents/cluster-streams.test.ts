/**
 * The stream relay between two processes on an in-memory cluster network, with a local gateway whose opens
 * the test completes by hand: an opener that gives up before the holder's open completes, and a holder
 * that sends more than the window.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryClusterNetwork, type ClusterBus } from '../platform/cluster/cluster-bus.js';
import { createOwnedStates } from '../platform/cluster/owned-state.js';
import { silentLogger } from '../platform/logger.js';
import { FakeNodeRegistries } from '../testing/fake-node-registry.js';
import {
  AgentTimeoutError,
  type AgentStreamHandle,
  type AgentStreams,
  type OpenStreamOptions,
  type StreamEnd,
} from './agent-gateway.js';
import { createStreamRelay } from './cluster-streams.js';

interface HeldOpen {
  options: OpenStreamOptions<'pty'>;
  closed: string[];
  acked: number[];
  complete(): void;
}

/** A local gateway whose stream opens wait for the test. */
function heldStreams(): { streams: AgentStreams; opens: HeldOpen[] } {
  const opens: HeldOpen[] = [];
  const streams: AgentStreams = {
    openStream(assetId, options) {
      return new Promise((resolve) => {
        const held: HeldOpen = {
          options: options as OpenStreamOptions<'pty'>,
          closed: [],
          acked: [],
          complete() {
            const handle: AgentStreamHandle<'pty'> = {
              id: 's1',
              assetId,
              kind: 'pty',
              info: { shell: '/bin/sh', pid: 7 },
              closed: false,
              queuedBytes: 0,
              write: () => true,
              resize: () => undefined,
              ack: (bytes) => held.acked.push(bytes),
              close: (reason) => held.closed.push(reason),
            };
            resolve(handle as never);
          },
        };
        opens.push(held);
      });
    },
  };
  return { streams, opens };
}

/** The owned-state seam of one process, whose agent streams the relay carries. */
function seam(bus: ClusterBus) {
  const owned = createOwnedStates({
    bus,
    registry: new FakeNodeRegistries().registry(bus.nodeId),
    logger: silentLogger,
  });
  return { owned, kind: 'agent' };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('stream relay', () => {
  it('closes what the holder opens after the opener gave up waiting', async () => {
    const network = createMemoryClusterNetwork();
    const holderBus = network.join('node_holder');
    const openerBus = network.join('node_opener');
    const held = heldStreams();
    createStreamRelay({ ...seam(holderBus), local: held.streams, logger: silentLogger }).start();
    const opener = createStreamRelay({
      ...seam(openerBus),
      local: heldStreams().streams,
      logger: silentLogger,
      marginMs: 10,
    });

    const opening = opener.open('node_holder', 'ast_1', {
      kind: 'pty',
      params: { cols: 80, rows: 24 },
      timeoutMs: 50,
      onData: () => undefined,
      onClose: () => undefined,
    });
    await expect(opening).rejects.toBeInstanceOf(AgentTimeoutError);
    expect(held.opens).toHaveLength(1);

    held.opens[0]!.complete();
    await until(() => held.opens[0]!.closed.length === 1, 'the close');
    expect(held.opens[0]!.closed).toEqual(['the open timed out']);
  });

  it('acknowledges the agent only what the opener acknowledged, and ends a stream that overruns', async () => {
    const network = createMemoryClusterNetwork();
    const holderBus = network.join('node_holder');
    const openerBus = network.join('node_opener');
    const held = heldStreams();
    createStreamRelay({ ...seam(holderBus), local: held.streams, logger: silentLogger }).start();
    const opener = createStreamRelay({
      ...seam(openerBus),
      local: heldStreams().streams,
      logger: silentLogger,
    });
    const received: Buffer[] = [];
    const ends: StreamEnd[] = [];

    const opening = opener.open('node_holder', 'ast_1', {
      kind: 'pty',
      params: { cols: 80, rows: 24 },
      windowBytes: 4_096,
      onData: (chunk) => received.push(chunk),
      onClose: (end) => ends.push(end),
    });
    await until(() => held.opens.length === 1, 'the open');
    held.opens[0]!.complete();
    const handle = await opening;
    expect(handle.info).toEqual({ shell: '/bin/sh', pid: 7 });

    const agentSide = held.opens[0]!;
    agentSide.options.onData(Buffer.alloc(3_000, 1));
    await until(() => received.length === 1, 'the output');
    expect(agentSide.acked).toEqual([]);
    handle.ack(1_000);
    // More than taken is capped at what was delivered.
    handle.ack(10_000);
    await until(() => agentSide.acked.length === 2, 'the acks');
    expect(agentSide.acked).toEqual([1_000, 2_000]);

    // A holder that sends past the window (here the local side ignoring credit) ends the stream.
    agentSide.options.onData(Buffer.alloc(4_096, 2));
    agentSide.options.onData(Buffer.alloc(1, 3));
    await until(() => ends.length === 1, 'the end');
    expect(ends[0]).toMatchObject({
      by: 'hub',
      reason: 'the hub process holding the agent sent more than the window',
    });
    await until(() => agentSide.closed.length === 1, 'the close on the holder');
  });
});
