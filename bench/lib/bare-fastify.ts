/**
 * The baseline for the api benchmark: a bare Fastify with no auth, no database and no validation, serving
 * precomputed bodies of the same shape and size as the hub's answers. The hub's figure divided by this one
 * is the ratio that holds across machines.
 */
import Fastify from 'fastify';

const port = Number(process.env.BARE_PORT);
const assetsBody = process.env.BARE_ASSETS_BODY ?? '{}';
const whoamiBody = process.env.BARE_WHOAMI_BODY ?? '{}';

const app = Fastify({ logger: false });
app.get('/api/v2/assets', async (_request, reply) =>
  reply.type('application/json; charset=utf-8').send(assetsBody),
);
app.get('/api/v2/whoami', async (_request, reply) =>
  reply.type('application/json; charset=utf-8').send(whoamiBody),
);
await app.listen({ host: '127.0.0.1', port });
process.stdout.write('bare fastify ready\n');
