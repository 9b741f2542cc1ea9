/**
 * Answers for requests the HTTP parser refuses before Fastify sees them (an unknown method, an over-long
 * header, a timeout): the same error envelope and the same security headers as every other answer (spec 5.3
 * requires them on all HTTPS responses), where Node's and Fastify's defaults send neither.
 */
import type { Socket } from 'node:net';
import { HubError } from '../platform/hub-error.js';
import { rawErrorResponse } from './envelope.js';

function statusOf(code: string | undefined): { status: number; message: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { status: 408, message: 'The request did not arrive in time.' };
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, message: 'The request headers are too large.' };
  return { status: 400, message: 'The request is not valid HTTP.' };
}

/** The raw answer written on the socket; HSTS only where the connection is TLS. */
function clientErrorResponse(code: string | undefined, encrypted: boolean): string {
  const { status, message } = statusOf(code);
  return rawErrorResponse(new HubError('validation', message), { encrypted, status });
}

export function handleClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const encrypted = (socket as Socket & { encrypted?: boolean }).encrypted === true;
    socket.write(clientErrorResponse(error.code, encrypted));
  }
  socket.destroy(error);
}
