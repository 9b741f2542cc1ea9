/** A small HTTPS client for tests that need to see the TLS layer: the peer certificate, protocol, cipher. */
import https from 'node:https';
import type { PeerCertificate, TLSSocket } from 'node:tls';

export interface TlsRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  ca?: string;
  /** Skip verification (to look at a certificate that is not valid for the real clock yet). */
  insecure?: boolean;
  minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  maxVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  ciphers?: string;
  /** Key exchange groups the client offers, e.g. `ffdhe2048` or `X25519`. */
  ecdhCurve?: string;
  servername?: string;
}

export interface TlsResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  peer: PeerCertificate;
  protocol: string | null;
  cipher: string;
  /** The key exchange group the handshake used, e.g. `X25519`. */
  group: string | undefined;
}

export function tlsRequest(url: string, options: TlsRequestOptions = {}): Promise<TlsResponse> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        ca: options.ca,
        rejectUnauthorized: !options.insecure,
        minVersion: options.minVersion,
        maxVersion: options.maxVersion,
        ciphers: options.ciphers,
        ecdhCurve: options.ecdhCurve,
        servername: options.servername,
        agent: false,
        timeout: 10_000,
      },
      (res) => {
        // An https response always arrives on a TLS socket.
        // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
        const socket = res.socket as TLSSocket;
        const peer = socket.getPeerCertificate();
        const protocol = socket.getProtocol();
        const cipher = socket.getCipher().name;
        const group = socket.getEphemeralKeyInfo();
        const groupName = group && 'name' in group ? group.name : undefined;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            peer,
            protocol,
            cipher,
            group: groupName,
          });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}
