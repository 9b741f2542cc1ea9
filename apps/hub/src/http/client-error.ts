/**
 * Answers for requests the HTTP parser refuses before Fastify sees them (an unknown method, an over-long
 * header, a timeout): the same error envelope and the same security headers as every other answer (spec 5.3
 * requires them on all HTTPS responses), where Node's and Fastify's defaults send neither.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { newId } from '@svc/protocol';

function statusOf(code: string | undefined): { status: number; error: string; message: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, error: 'validation', message: 'The request did not arrive in time.' };
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, error: 'validation', message: 'The request headers are too large.' };
  }
  return { status: 400, error: 'validation', message: 'The request is not valid HTTP.' };
}

/** The raw answer written on the socket; HSTS only where the connection is TLS. */
function clientErrorResponse(code: string | undefined, encrypted: boolean): string {
  const { status, error, message } = statusOf(code);
  const body = JSON.stringify({ request_id: newId('request'), error, message, status });
  const headers = [
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Bad Request'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'X-Content-Type-Options: nosniff',
    'X-Frame-Options: DENY',
    'Cache-Control: no-store',
    ...(encrypted ? ['Strict-Transport-Security: max-age=63072000'] : []),
    'Connection: close',
  ];
  return `${headers.join('\r\n')}\r\n\r\n${body}`;
}

export function handleClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const encrypted = (socket as Socket & { encrypted?: boolean }).encrypted === true;
    socket.write(clientErrorResponse(error.code, encrypted));
  }
  socket.destroy(error);
}
