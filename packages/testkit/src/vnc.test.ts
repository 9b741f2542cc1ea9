import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rfbHandshake, rfbPixelAt, tcpByteStream } from './rfb-client.js';
import { startVncServer, vncMissing, type VncServer } from './vnc.js';

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
