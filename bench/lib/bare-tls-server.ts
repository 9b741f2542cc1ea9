/**
 * tls benchmark baseline: a bare TLS server with the key exchange groups OpenSSL 3.0 offered by default
 * (ffdhe2048…ffdhe8192 included), the hub's TLS policy before issue 11 on Node 20, serving a P-256 certificate
 * like the hub's. The groups are named: OpenSSL 3.5 (Node 24) dropped ffdhe4096…8192 from its defaults, and a
 * server that names them still takes them. Port from BARE_TLS_PORT; prints "listening" when ready.
 */
import tls from 'node:tls';
import {
  createCertificateAuthority,
  issueServerCertificate,
} from '../../apps/hub/src/platform/tls/certificates.js';

const now = new Date();
const ca = await createCertificateAuthority(now, 'bench baseline CA');
const leaf = await issueServerCertificate(ca, ['localhost', '127.0.0.1'], now);
const { tlsPolicy } = await import('../../apps/hub/src/platform/tls/tls-manager.js');
const openssl30Groups = 'X25519:P-256:X448:P-521:P-384:ffdhe2048:ffdhe3072:ffdhe4096:ffdhe6144:ffdhe8192';
// The hub's policy but for its groups.
const server = tls.createServer(
  { cert: leaf.certPem, key: leaf.keyPem, ...tlsPolicy, ecdhCurve: openssl30Groups },
  (socket) => {
    socket.end();
  },
);
server.listen(Number(process.env.BARE_TLS_PORT), '127.0.0.1', () => {
  process.stdout.write('listening\n');
});
