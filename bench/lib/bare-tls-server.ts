/**
 * tls benchmark baseline: a bare TLS server with OpenSSL's default key exchange groups (ffdhe2048…ffdhe8192
 * included), the hub's TLS policy before issue 11, serving a P-256 certificate like the hub's. Port from
 * BARE_TLS_PORT; prints "listening" when ready.
 */
import tls from 'node:tls';
import {
  createCertificateAuthority,
  issueServerCertificate,
} from '../../apps/hub/src/platform/tls/certificates.js';

const now = new Date();
const ca = await createCertificateAuthority(now, 'bench baseline CA');
const leaf = await issueServerCertificate(ca, ['localhost', '127.0.0.1'], now);
const { ecdhCurve: _hubGroups, ...before } = (await import('../../apps/hub/src/platform/tls/tls-manager.js'))
  .tlsPolicy;
const server = tls.createServer({ cert: leaf.certPem, key: leaf.keyPem, ...before }, (socket) => {
  socket.end();
});
server.listen(Number(process.env.BARE_TLS_PORT), '127.0.0.1', () => {
  process.stdout.write('listening\n');
});
