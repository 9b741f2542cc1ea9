import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { parseSettingValue, resolveSettings } from '../config/settings.js';
import { desktopTarget, openTcpStream } from './tunnel.js';

describe('the desktop target', () => {
  it('is loopback on the port from the settings, 5900 by default', () => {
    const none = resolveSettings({ env: {}, file: null, platform: 'linux' });
    expect(desktopTarget(none.settings)).toEqual({ host: '127.0.0.1', port: 5900 });
    const fromEnv = resolveSettings({ env: { SVC_AGENT_VNC_PORT: '5901' }, file: null, platform: 'linux' });
    expect(desktopTarget(fromEnv.settings)).toEqual({ host: '127.0.0.1', port: 5901 });
    const fromFile = resolveSettings({ env: {}, file: { vnc_port: 5902 }, platform: 'linux' });
    expect(desktopTarget(fromFile.settings)).toEqual({ host: '127.0.0.1', port: 5902 });
  });

  it('refuses a value naming another host, and reports it', () => {
    const resolved = resolveSettings({
      env: { SVC_AGENT_VNC_PORT: '10.0.0.5:5900' },
      file: { vnc_port: 70000 },
      platform: 'linux',
    });
    expect(desktopTarget(resolved.settings)).toEqual({ host: '127.0.0.1', port: 5900 });
    expect(resolved.warnings).toHaveLength(2);
    expect(parseSettingValue('vnc_port', 'example.net:5900')).toMatchObject({ ok: false });
    expect(parseSettingValue('vnc_port', '5905')).toEqual({ ok: true, key: 'vnc_port', stored: '5905' });
  });
});

describe('the tcp stream opener', () => {
  it('connects to the loopback target and carries bytes both ways', async () => {
    const server = net.createServer((socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address() as net.AddressInfo;
    const socket = await openTcpStream({ host: '127.0.0.1', port: address.port });
    const echoed = new Promise<string>((resolve) =>
      socket.once('data', (d: Buffer) => {
        resolve(d.toString());
      }),
    );
    socket.write('RFB');
    expect(await echoed).toBe('RFB');
    socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('says plainly when nothing listens on the port', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    await expect(openTcpStream({ host: '127.0.0.1', port })).rejects.toMatchObject({
      code: 'not_found',
      message: `no VNC server listening on 127.0.0.1:${port} (setting vnc_port)`,
    });
  });
});
