/**
 * wol.relay: sends a Wake-on-LAN magic packet (6 × 0xFF, then the MAC address 16 times: 102 bytes) over UDP
 * with broadcast allowed, for a machine on this agent's LAN. The address must be an IP literal: no lookups.
 */
import dgram from 'node:dgram';
import { isIP } from 'node:net';
import type { AgentRequestPayload, AgentRequestResult } from '@svc/protocol';
import { AgentError } from './agent-error.js';
import type { HandlerMap } from './types.js';

export function magicPacket(mac: string): Buffer {
  const hex = mac.replace(/[:-]/g, '');
  if (!/^[0-9a-fA-F]{12}$/.test(hex)) throw new AgentError('invalid_argument', `invalid MAC address: ${mac}`);
  const address = Buffer.from(hex, 'hex');
  const packet = Buffer.alloc(6 + 16 * 6, 0xff);
  for (let i = 0; i < 16; i++) address.copy(packet, 6 + i * 6);
  return packet;
}

export function sendMagicPacket({
  mac,
  address,
  port,
}: AgentRequestPayload<'wol.relay'>): Promise<AgentRequestResult<'wol.relay'>> {
  const family = isIP(address);
  if (family === 0)
    return Promise.reject(new AgentError('invalid_argument', `address must be an IP address: ${address}`));
  let packet: Buffer;
  try {
    packet = magicPacket(mac);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket(family === 6 ? 'udp6' : 'udp4');
    const fail = (error: Error) => {
      socket.close();
      reject(new AgentError('failed', `cannot send the magic packet: ${error.message}`));
    };
    socket.once('error', fail);
    socket.bind(0, () => {
      socket.setBroadcast(true);
      socket.send(packet, port, address, (error) => {
        if (error) {
          fail(error);
          return;
        }
        socket.close();
        resolve({ sent: true });
      });
    });
  });
}

export function createWolHandlers(): Pick<HandlerMap, 'wol.relay'> {
  return { 'wol.relay': sendMagicPacket };
}
