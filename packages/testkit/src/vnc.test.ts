import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rfbHandshake, rfbPixelAt, tcpByteStream } from './rfb-client.js';
import { startVncServer, vncMissing, type VncServer } from './vnc.js';
import { watchXInput } from './x-input-watch.js';

const missing = vncMissing();

describe.skipIf(missing !== null)('the VNC server fixture', () => {
  let server: VncServer;
  beforeAll(async () => {
    server = await startVncServer({ password: 'fixture1', colour: [200, 40, 90] });
  });
  afterAll(async () => {
    await server.close();
  });

  it('offers only VncAuth, accepts its password and shows the painted colour', async () => {
    const stream = await tcpByteStream(server.port);
    try {
      const session = await rfbHandshake(stream, 'fixture1');
      expect(session.version).toBe('RFB 003.008');
      expect(session.securityTypes).toEqual([2]);
      expect([session.width, session.height]).toEqual([320, 200]);
      expect(await rfbPixelAt(stream, session, 160, 100)).toEqual([200, 40, 90]);
    } finally {
      stream.close();
    }
  });

  it('refuses a wrong password', async () => {
    const stream = await tcpByteStream(server.port);
    try {
      await expect(rfbHandshake(stream, 'wrong')).rejects.toThrow(/authentication failed/);
    } finally {
      stream.close();
    }
  });
});

describe.skipIf(missing !== null)('the X display behind the VNC server', () => {
  let server: VncServer;
  beforeAll(async () => {
    server = await startVncServer({ password: 'fixture2' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('reports the clicks and keys a VNC client sends as the X server received them', async () => {
    const watch = await watchXInput(server.display);
    const stream = await tcpByteStream(server.port);
    try {
      await rfbHandshake(stream, 'fixture2');
      // PointerEvent (5): button 3 down at (30, 40), then up; KeyEvent (4): 'q' (0x71) down, then up.
      const pointer = (mask: number) => Buffer.from([5, mask, 0, 30, 0, 40]);
      const key = (down: number) => Buffer.from([4, down, 0, 0, 0, 0, 0, 0x71]);
      stream.write(Buffer.concat([pointer(4), pointer(0), key(1), key(0)]));
      await expect
        .poll(() => watch.buttons())
        .toEqual([
          { kind: 'press', button: 3, x: 30, y: 40 },
          { kind: 'release', button: 3, x: 30, y: 40 },
        ]);
      await expect
        .poll(() => watch.keys())
        .toEqual([
          { kind: 'press', keysym: 0x71 },
          { kind: 'release', keysym: 0x71 },
        ]);
    } finally {
      stream.close();
      watch.close();
    }
  });
});
