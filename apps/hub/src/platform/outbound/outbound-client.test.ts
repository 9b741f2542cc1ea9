/**
 * The client from an attacker's side: URLs and DNS answers that point at the hub's own host or its cloud
 * metadata. All traffic goes to loopback listeners made here; names resolve through an injected resolver.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { createCertificateAuthority, issueServerCertificate } from '../tls/certificates.js';
import { defaultOutboundPolicy, type OutboundPolicy } from './address-policy.js';
import type { ResolvedAddress, Resolver } from './guarded-lookup.js';
import { createOutboundClient, type OutboundClient } from './outbound-client.js';
import { OutboundRefused, type OutboundRefusedReason } from './outbound-refused.js';

interface Listener {
  port: number;
  hits: { url: string; headers: IncomingHttpHeaders }[];
}

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listen(
  answer: (res: ServerResponse, url: string) => void = (res) => res.end('hello'),
): Promise<Listener> {
  const hits: Listener['hits'] = [];
  const server: Server = createServer((req, res) => {
    hits.push({ url: req.url ?? '', headers: req.headers });
    answer(res, req.url ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  );
  return { port: (server.address() as AddressInfo).port, hits };
}

function redirectTo(location: string, status = 302): (res: ServerResponse) => void {
  return (res) => {
    res.writeHead(status, { location });
    res.end();
  };
}

/** A resolver that answers from a table and counts its queries. */
function fakeResolver(answers: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = (hostname: string): Promise<readonly ResolvedAddress[]> => {
    calls.push(hostname);
    const addresses = answers[hostname];
    if (!addresses) return Promise.reject(new Error(`ENOTFOUND ${hostname}`));
    return Promise.resolve(
      addresses.map((address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  return Object.assign(resolve, { calls });
}

const insecureOnly: OutboundPolicy = { ...defaultOutboundPolicy, allowInsecure: true };
const loopbackAllowed: OutboundPolicy = { ...insecureOnly, allowLoopback: true };

function client(policy: OutboundPolicy, resolver: Resolver = fakeResolver({})): OutboundClient {
  const created = createOutboundClient({ policy, resolver });
  cleanups.push(() => created.close());
  return created;
}

/** A client on the real system resolver, for names the hosts file answers (localhost). */
function systemClient(policy: OutboundPolicy): OutboundClient {
  const created = createOutboundClient({ policy });
  cleanups.push(() => created.close());
  return created;
}

async function refusal(attempt: Promise<unknown>): Promise<OutboundRefused> {
  const error: unknown = await attempt.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OutboundRefused);
  return error as OutboundRefused;
}

async function expectRefused(
  attempt: Promise<unknown>,
  reason: OutboundRefusedReason,
): Promise<OutboundRefused> {
  const error = await refusal(attempt);
  expect(error.reason).toBe(reason);
  return error;
}

describe('a name that resolves to 127.0.0.1', () => {
  it('is refused by default, before any byte reaches the listener', async () => {
    const listener = await listen();
    const resolver = fakeResolver({ 'hook.test': ['127.0.0.1'] });

    const error = await expectRefused(
      client(insecureOnly, resolver).request(`http://hook.test:${String(listener.port)}/`),
      'blocked_address',
    );

    expect(error.category).toBe('loopback');
    expect(resolver.calls).toEqual(['hook.test']);
    expect(listener.hits).toHaveLength(0);
  });

  it('is reached with the loopback opt-in, Host still naming the name', async () => {
    const listener = await listen();
    const resolver = fakeResolver({ 'hook.test': ['127.0.0.1'] });

    const response = await client(loopbackAllowed, resolver).request(
      `http://hook.test:${String(listener.port)}/ping`,
    );

    expect(response.status).toBe(200);
    expect(await response.body.text()).toBe('hello');
    expect(listener.hits.map((hit) => hit.headers.host)).toEqual([`hook.test:${String(listener.port)}`]);
  });

  it('is judged the same through the system resolver (localhost)', async () => {
    const listener = await listen();
    const url = `http://localhost:${String(listener.port)}/`;

    await expectRefused(systemClient(insecureOnly).request(url), 'blocked_address');
    expect(listener.hits).toHaveLength(0);

    const response = await systemClient(loopbackAllowed).request(url);
    expect(await response.body.text()).toBe('hello');
  });

  it('is resolved once per connection and dialled at the answer it was judged by (no rebinding window)', async () => {
    const listener = await listen();
    let calls = 0;
    // A rebinding server: the first answer passes the check, any later one points elsewhere.
    const rebinding: Resolver = (hostname) => {
      calls += 1;
      const address = calls === 1 ? '127.0.0.1' : '10.0.0.5';
      return Promise.resolve(hostname === 'rebind.test' ? [{ address, family: 4 }] : []);
    };
    const policy: OutboundPolicy = { ...loopbackAllowed, allowPrivate: 'false' };

    const response = await client(policy, rebinding).request(`http://rebind.test:${String(listener.port)}/`);

    expect(await response.body.text()).toBe('hello');
    expect(calls).toBe(1);
    expect(listener.hits).toHaveLength(1);
  });

  it('is refused on the next connection once the policy drops the opt-in, without a restart', async () => {
    const listener = await listen();
    const resolver = fakeResolver({ 'hook.test': ['127.0.0.1'] });
    const live = client(loopbackAllowed, resolver);
    const url = `http://hook.test:${String(listener.port)}/`;
    await (await live.request(url)).body.dump();

    live.setPolicy(insecureOnly);

    await expectRefused(live.request(url), 'blocked_address');
    expect(listener.hits).toHaveLength(1);
  });
});

describe('https', () => {
  it('dials the validated address but verifies the certificate and sends SNI and Host for the name', async () => {
    const now = new Date();
    const ca = await createCertificateAuthority(now, 'outbound test CA');
    const leaf = await issueServerCertificate(ca, ['secure.test'], now);
    const servernames: (string | false | null)[] = [];
    const hosts: (string | undefined)[] = [];
    const server = createTlsServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
      hosts.push(req.headers.host);
      res.end('secure');
    });
    server.on('secureConnection', (socket: TLSSocket) => {
      servernames.push(socket.servername);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => {
            resolve();
          });
        }),
    );
    const port = (server.address() as AddressInfo).port;
    const resolver = fakeResolver({ 'secure.test': ['127.0.0.1'] });
    const policy: OutboundPolicy = { ...defaultOutboundPolicy, allowLoopback: true };
    const live = createOutboundClient({ policy, resolver, ca: ca.certPem });
    cleanups.push(() => live.close());

    const response = await live.request(`https://secure.test:${String(port)}/`);

    expect(await response.body.text()).toBe('secure');
    expect(servernames).toEqual(['secure.test']);
    expect(hosts).toEqual([`secure.test:${String(port)}`]);
  });
});

describe('redirects', () => {
  it('refuses a hop to 0.0.0.0 (the local host) though the first hop was allowed', async () => {
    const inner = await listen();
    const outer = await listen(redirectTo(`http://0.0.0.0:${String(inner.port)}/secret`));

    const error = await expectRefused(
      client(loopbackAllowed).request(`http://127.0.0.1:${String(outer.port)}/`),
      'blocked_address',
    );

    expect(error.category).toBe('unspecified');
    expect(outer.hits).toHaveLength(1);
    expect(inner.hits).toHaveLength(0);
  });

  it('refuses a hop to a name that resolves to the metadata address, judged after its own lookup', async () => {
    const outer = await listen(redirectTo('http://metadata.test/latest/meta-data/'));
    const resolver = fakeResolver({ 'metadata.test': ['169.254.169.254'] });

    const error = await expectRefused(
      client(loopbackAllowed, resolver).request(`http://127.0.0.1:${String(outer.port)}/`),
      'blocked_address',
    );

    expect(error.host).toBe('metadata.test');
    expect(resolver.calls).toEqual(['metadata.test']);
  });

  it('refuses a hop to the cloud metadata address without connecting', async () => {
    const outer = await listen(redirectTo('http://169.254.169.254/latest/meta-data/'));
    const resolver = fakeResolver({});

    const error = await expectRefused(
      client(loopbackAllowed, resolver).request(`http://127.0.0.1:${String(outer.port)}/`),
      'blocked_address',
    );

    expect(error.category).toBe('link_local');
    expect(resolver.calls).toHaveLength(0);
  });

  it('follows five redirects and refuses the sixth', async () => {
    const listener = await listen((res, url) => {
      const hop = Number(url.slice(1));
      if (hop < 6) redirectTo(`/${String(hop + 1)}`)(res);
      else res.end('arrived');
    });
    const base = `http://127.0.0.1:${String(listener.port)}`;
    const live = client(loopbackAllowed);

    const fiveHops = await live.request(`${base}/1`);
    expect(await fiveHops.body.text()).toBe('arrived');
    expect(fiveHops.url).toBe(`${base}/6`);

    listener.hits.length = 0;
    await expectRefused(live.request(`${base}/0`), 'too_many_redirects');
    expect(listener.hits).toHaveLength(6);
  });

  it('does not carry Authorization to another origin', async () => {
    const inner = await listen();
    const outer = await listen(redirectTo(`http://localhost.test:${String(inner.port)}/`, 307));
    const resolver = fakeResolver({ 'localhost.test': ['127.0.0.1'] });

    await (
      await client(loopbackAllowed, resolver).request(`http://127.0.0.1:${String(outer.port)}/`, {
        headers: { authorization: 'Bearer upstream-secret', 'x-trace': '1' },
      })
    ).body.dump();

    expect(outer.hits[0]?.headers.authorization).toBe('Bearer upstream-secret');
    expect(inner.hits[0]?.headers.authorization).toBeUndefined();
    expect(inner.hits[0]?.headers['x-trace']).toBe('1');
  });
});

describe('checked before any lookup', () => {
  it.each([
    'https://127.0.0.1/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://2130706433/',
    'https://0x7f.1/',
    'https://169.254.169.254/latest/meta-data/',
    'https://[fd00:ec2::254]/',
    'https://0.0.0.0/',
  ])('%s is refused as an IP literal, the resolver never asked', async (url) => {
    const resolver = fakeResolver({});

    await expectRefused(client(defaultOutboundPolicy, resolver).request(url), 'blocked_address');

    expect(resolver.calls).toHaveLength(0);
  });

  it('refuses http:// without the insecure-transport opt-in, even where the address is allowed', async () => {
    const listener = await listen();
    const policy = { ...defaultOutboundPolicy, allowLoopback: true };

    await expectRefused(
      client(policy).request(`http://127.0.0.1:${String(listener.port)}/`),
      'insecure_transport',
    );

    expect(listener.hits).toHaveLength(0);
  });

  it.each(['ftp://files.test/', 'file:///etc/passwd', 'wss://socket.test/'])(
    'refuses the scheme of %s',
    async (url) => {
      await expectRefused(client(loopbackAllowed).request(url), 'insecure_transport');
    },
  );

  it('checks the address of a name on the allowlist all the same', async () => {
    const listener = await listen();
    const resolver = fakeResolver({ 'api.example.test': ['127.0.0.1'] });
    const policy = { ...insecureOnly, hostAllowlist: ['api.example.test'] };
    const live = client(policy, resolver);

    await expectRefused(live.request(`http://api.example.test:${String(listener.port)}/`), 'blocked_address');
    await expectRefused(
      live.request(`http://other.example.test:${String(listener.port)}/`),
      'host_not_allowed',
    );
    expect(listener.hits).toHaveLength(0);
  });
});

describe('DNS answers', () => {
  it('refuses an answer with one public and one private address as a whole under false', async () => {
    const resolver = fakeResolver({ 'mixed.test': ['93.184.216.34', '10.0.0.5'] });
    const policy: OutboundPolicy = { ...defaultOutboundPolicy, allowPrivate: 'false' };

    const error = await expectRefused(
      client(policy, resolver).request('https://mixed.test/'),
      'blocked_address',
    );

    expect(error.address).toBe('10.0.0.5');
    expect(error.category).toBe('private');
  });

  it('refuses a name that does not resolve, or resolves to nothing', async () => {
    const resolver = Object.assign(fakeResolver({ 'empty.test': [] }), {});

    await expectRefused(
      client(defaultOutboundPolicy, resolver).request('https://missing.test/'),
      'dns_failed',
    );
    await expectRefused(client(defaultOutboundPolicy, resolver).request('https://empty.test/'), 'dns_failed');
  });
});

describe('webSocket', () => {
  async function echoServer(): Promise<{ port: number; connections: () => number }> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    let count = 0;
    server.on('connection', (socket) => {
      count += 1;
      socket.on('message', (data, isBinary) => {
        socket.send(data, { binary: isBinary });
      });
    });
    await new Promise<void>((resolve) => server.once('listening', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of server.clients) socket.terminate();
          server.close(() => {
            resolve();
          });
        }),
    );
    return { port: (server.address() as AddressInfo).port, connections: () => count };
  }

  it('refuses a name that resolves to loopback, and connects with the opt-in', async () => {
    const server = await echoServer();
    const resolver = fakeResolver({ 'socket.test': ['127.0.0.1'] });
    const url = `ws://socket.test:${String(server.port)}/`;

    await expectRefused(client(insecureOnly, resolver).webSocket(url), 'blocked_address');
    expect(server.connections()).toBe(0);

    const socket = await client(loopbackAllowed, resolver).webSocket(url);
    const echoed = new Promise<string>((resolve) => {
      socket.once('message', (data: Buffer) => {
        resolve(data.toString());
      });
    });
    socket.send('ping');
    expect(await echoed).toBe('ping');
    socket.close();
    expect(server.connections()).toBe(1);
  });

  it('refuses ws:// without the insecure opt-in and a literal before any lookup', async () => {
    const resolver = fakeResolver({});
    const policy = { ...defaultOutboundPolicy, allowLoopback: false };

    await expectRefused(client(policy, resolver).webSocket('ws://socket.test/'), 'insecure_transport');
    await expectRefused(
      client(policy, resolver).webSocket('wss://[::ffff:169.254.169.254]/'),
      'blocked_address',
    );
    await expectRefused(client(policy, resolver).webSocket('https://socket.test/'), 'insecure_transport');
    expect(resolver.calls).toHaveLength(0);
  });
});
