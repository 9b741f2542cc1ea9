import dgram from 'node:dgram';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { RunCommand } from '../platform/run-command.js';
import { createPowerHandlers, powerDisabledMessage } from './power.js';
import { magicPacket, sendMagicPacket } from './wol.js';

function recorder(code = 0): { run: RunCommand; calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    run: (file, args) => {
      calls.push([file, ...args]);
      return Promise.resolve({ code, stdout: '', stderr: code === 0 ? '' : 'Failed to reboot' });
    },
  };
}

describe('power', () => {
  it('is refused when the settings do not allow it, and runs nothing', async () => {
    const { run, calls } = recorder();
    const power = createPowerHandlers({
      isAllowed: () => false,
      runCommand: run,
      isSystemdRunning: () => true,
    });
    await expect(power['power.reboot']({})).rejects.toMatchObject({
      code: 'unsupported',
      message: powerDisabledMessage,
    });
    await expect(power['power.shutdown']({})).rejects.toMatchObject({
      code: 'unsupported',
      message: powerDisabledMessage,
    });
    expect(calls).toEqual([]);
  });

  it('uses systemctl reboot / poweroff on systemd (argv only)', async () => {
    const { run, calls } = recorder();
    const power = createPowerHandlers({
      isAllowed: () => true,
      runCommand: run,
      isSystemdRunning: () => true,
    });
    await expect(power['power.reboot']({})).resolves.toEqual({ accepted: true });
    await expect(power['power.shutdown']({})).resolves.toEqual({ accepted: true });
    expect(calls).toEqual([
      ['systemctl', 'reboot'],
      ['systemctl', 'poweroff'],
    ]);
  });

  it('uses shutdown without systemd, and reports a failure', async () => {
    const { run, calls } = recorder(1);
    const power = createPowerHandlers({
      isAllowed: () => true,
      runCommand: run,
      isSystemdRunning: () => false,
    });
    await expect(power['power.reboot']({})).rejects.toMatchObject({ code: 'failed' });
    expect(calls).toEqual([['shutdown', '-r', 'now']]);
  });
});

describe('Wake-on-LAN', () => {
  it('builds the 102-byte magic packet', () => {
    const packet = magicPacket('aa:bb:cc:00:11:22');
    expect(packet.length).toBe(102);
    expect(packet.subarray(0, 6).equals(Buffer.alloc(6, 0xff))).toBe(true);
    for (let i = 0; i < 16; i++)
      expect(packet.subarray(6 + i * 6, 12 + i * 6).toString('hex')).toBe('aabbcc001122');
  });

  it('sends it to a loopback listener', async () => {
    const listener = dgram.createSocket('udp4');
    listener.bind(0, '127.0.0.1');
    await once(listener, 'listening');
    const port = listener.address().port;
    const received = once(listener, 'message') as Promise<[Buffer]>;
    try {
      await expect(
        sendMagicPacket({ mac: '01:23:45:67:89:ab', address: '127.0.0.1', port }),
      ).resolves.toEqual({ sent: true });
      const [message] = await received;
      expect(message.equals(magicPacket('01:23:45:67:89:ab'))).toBe(true);
    } finally {
      listener.close();
    }
  });

  it('refuses a host name (no lookups) and a bad MAC', async () => {
    await expect(
      sendMagicPacket({ mac: '01:23:45:67:89:ab', address: 'example.com', port: 9 }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(
      sendMagicPacket({ mac: 'zz:23:45:67:89:ab', address: '127.0.0.1', port: 9 }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});
