import { describe, expect, it } from 'vitest';
import { AgentError } from './agent-error.js';
import { lazyHandlers, lazyOpeners } from './lazy.js';

describe('areas loaded on first use', () => {
  it('loads an area once, on its first request, for all of its request types', async () => {
    let loads = 0;
    const handlers = lazyHandlers('power', ['power.reboot', 'power.shutdown'], () => {
      loads += 1;
      return Promise.resolve({
        'power.reboot': () => Promise.resolve({ accepted: true }),
        'power.shutdown': () => Promise.resolve({ accepted: false }),
      });
    });
    expect(loads).toBe(0);
    await expect(handlers['power.reboot']({})).resolves.toEqual({ accepted: true });
    await expect(handlers['power.shutdown']({})).resolves.toEqual({ accepted: false });
    expect(loads).toBe(1);
  });

  it('answers a failed load with what to do, and loads again on the next request', async () => {
    let loads = 0;
    const handlers = lazyHandlers('wake-on-lan', ['wol.relay'], () => {
      loads += 1;
      if (loads === 1)
        return Promise.reject(new Error('Cannot find module /opt/svc-agent/dist/chunks/wol.mjs'));
      return Promise.resolve({ 'wol.relay': () => Promise.resolve({ sent: true }) });
    });
    const payload = { mac: '00:11:22:33:44:55' } as unknown as Parameters<(typeof handlers)['wol.relay']>[0];
    const failure = await handlers['wol.relay'](payload).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AgentError);
    expect(failure).toMatchObject({ code: 'failed' });
    expect((failure as Error).message).toMatch(/cannot load its wake-on-lan code .*restart it/);
    await expect(handlers['wol.relay'](payload)).resolves.toEqual({ sent: true });
  });

  it('opens streams through the opener of the area it loads', async () => {
    const openers = lazyOpeners('desktop', ['tcp'], () =>
      Promise.resolve({
        tcp: {
          open: () =>
            Promise.resolve({
              info: { port: 5900 },
              source: {
                write: () => undefined,
                pause: () => undefined,
                resume: () => undefined,
                close: () => undefined,
              },
            }),
        },
      }),
    );
    const sink = { output: () => undefined, end: () => undefined };
    await expect(openers.tcp?.open({}, sink)).resolves.toMatchObject({ info: { port: 5900 } });
  });
});
