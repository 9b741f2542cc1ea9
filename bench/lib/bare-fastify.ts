/**
 * The baseline for the api benchmark: a bare Fastify with no auth, no database and no validation, serving
 * precomputed bodies of the same shape and size as the hub's answers. The hub's figure divided by this one
 * is the ratio that holds across machines. With BARE_TLS=1 it serves HTTPS like the hub: a P-256 certificate
 * from a CA made the way the hub's built-in one is, and the hub's TLS policy.
 */
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import {
  createCertificateAuthority,
  issueServerCertificate,
} from '../../apps/hub/src/platform/tls/certificates.js';
import { tlsPolicy } from '../../apps/hub/src/platform/tls/tls-manager.js';

const port = Number(process.env.BARE_PORT);
const assetsBody = process.env.BARE_ASSETS_BODY ?? '{}';
const whoamiBody = process.env.BARE_WHOAMI_BODY ?? '{}';

async function httpsOptions() {
  const now = new Date();
  const ca = await createCertificateAuthority(now, 'bench baseline CA');
  const leaf = await issueServerCertificate(ca, ['localhost', '127.0.0.1'], now);
  return { cert: leaf.certPem, key: leaf.keyPem, ...tlsPolicy };
}

const send = (body: string) => async (_request: FastifyRequest, reply: FastifyReply) =>
  reply.type('application/json; charset=utf-8').send(body);

if (process.env.BARE_TLS === '1') {
  const app = Fastify({ logger: false, https: await httpsOptions() });
  app.get('/api/v2/assets', send(assetsBody));
  app.get('/api/v2/whoami', send(whoamiBody));
  await app.listen({ host: '127.0.0.1', port });
} else {
  const app = Fastify({ logger: false });
  app.get('/api/v2/assets', send(assetsBody));
  app.get('/api/v2/whoami', send(whoamiBody));
  await app.listen({ host: '127.0.0.1', port });
}
process.stdout.write('bare fastify ready\n');
