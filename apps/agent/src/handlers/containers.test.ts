import http from 'node:http';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDockerEngine, negotiateApiVersion } from '../platform/docker-engine.js';
import { AgentError } from './agent-error.js';
import {
  createContainerHandlers,
  healthFromStatus,
  isoTime,
  mapContainer,
  mapImage,
  mapVolume,
} from './containers.js';

/** A podman 4.3 list entry as captured (extra null fields, Networks null under host networking). */
const podmanEntry = {
  Id: 'd3fb1daf92e98b1f1bb85720967be72695252431c2108ebb1afb69e0dc7fbdc7',
  Names: ['/web-1'],
  Image: 'localhost/busybox:test',
  Created: 1795647009,
  Ports: [
    { IP: '0.0.0.0', PrivatePort: 80, PublicPort: 8080, Type: 'tcp' },
    { PrivatePort: 443, Type: 'tcp' },
  ],
  Labels: { 'com.docker.compose.project': 'shop', 'com.docker.compose.service': 'web' },
  State: 'running',
  Status: 'Up 3 minutes (healthy)',
  NetworkSettings: { Networks: null },
  Config: null,
  Platform: null,
  AdjustCPUShares: false,
};

describe('engine answers mapped to the catalog', () => {
  it('maps a list entry: name without its slash, ports, health from the status, compose labels', () => {
    expect(mapContainer(podmanEntry)).toEqual({
      id: podmanEntry.Id,
      name: 'web-1',
      image: 'localhost/busybox:test',
      state: 'running',
      status: 'Up 3 minutes (healthy)',
      health: 'healthy',
      created_at: new Date(1795647009 * 1000).toISOString(),
      ports: [
        { private_port: 80, public_port: 8080, ip: '0.0.0.0', type: 'tcp' },
        { private_port: 443, public_port: null, ip: null, type: 'tcp' },
      ],
      compose_project: 'shop',
      compose_service: 'web',
    });
  });

  it('drops entries without a usable id and survives missing fields', () => {
    expect(mapContainer({ Id: '../etc', Names: ['/x'] })).toBeNull();
    expect(mapContainer(null)).toBeNull();
    expect(mapContainer({ Id: 'abc123', Labels: null, Ports: null })).toMatchObject({
      name: 'abc123',
      state: 'unknown',
      ports: [],
      compose_project: null,
      health: null,
    });
  });

  it('reads health words and times in both of the engine forms', () => {
    expect(healthFromStatus('Up 1 second (health: starting)')).toBe('starting');
    expect(healthFromStatus('Up 2 hours (unhealthy)')).toBe('unhealthy');
    expect(healthFromStatus('Exited (137) 2 seconds ago')).toBeNull();
    expect(isoTime('2026-11-25T22:50:12.566821278Z')).toBe('2026-11-25T22:50:12.566Z');
    expect(isoTime('0001-01-01T00:00:00Z')).toBeNull();
    expect(isoTime(0)).toBeNull();
  });

  it('maps images and volumes', () => {
    expect(
      mapImage({
        Id: 'sha256:97',
        RepoTags: ['<none>:<none>', 'a:1'],
        Size: 1997895,
        Created: 1795646999,
        Containers: 2,
      }),
    ).toEqual({
      id: 'sha256:97',
      tags: ['a:1'],
      size_bytes: 1997895,
      created_at: expect.any(String) as unknown,
      containers: 2,
    });
    expect(
      mapVolume({
        Name: 'data',
        Driver: 'local',
        Mountpoint: '/v/data',
        CreatedAt: '2026-01-01T00:00:00Z',
        Labels: null,
      }),
    ).toEqual({
      name: 'data',
      driver: 'local',
      mountpoint: '/v/data',
      created_at: '2026-01-01T00:00:00.000Z',
      compose_project: null,
    });
  });

  it('negotiates the lower API version of the engine and the client', () => {
    expect(negotiateApiVersion('1.41')).toBe('1.41');
    expect(negotiateApiVersion('1.52')).toBe('1.47');
    expect(negotiateApiVersion(null)).toBe('1.47');
    expect(negotiateApiVersion('garbage')).toBe('1.47');
  });
});

describe('container handlers against a scripted engine', () => {
  let dir: string;
  let server: http.Server;
  let seen: string[];
  let socketPath: string;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-docker-'));
    socketPath = path.join(dir, 'engine.sock');
    seen = [];
    server = http.createServer((req, res) => {
      const url = req.url ?? '';
      seen.push(`${req.method ?? ''} ${url}`);
      if (url === '/_ping') return res.writeHead(200, { 'api-version': '1.41' }).end('OK');
      if (url === '/v1.41/containers/already/start') return res.writeHead(304).end();
      if (url === '/v1.41/containers/gone/start')
        return res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(
            '{"cause":"no such container","message":"no container with name or ID \\"gone\\" found","response":404}',
          );
      if (url === '/v1.41/containers/already/json')
        return res
          .writeHead(200)
          .end(JSON.stringify({ Id: 'already', Name: '/already', State: { Status: 'running' } }));
      if (url === '/v1.41/containers/json?all=1') return res.writeHead(200).end('not json');
      return res.writeHead(500).end('{"message":"boom"}');
    });
    server.listen(socketPath);
    await once(server, 'listening');
  });

  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('treats 304 as success that changed nothing', async () => {
    const handlers = createContainerHandlers(createDockerEngine({ kind: 'unix', socketPath }));
    await expect(handlers['containers.action']({ id: 'already', action: 'start' })).resolves.toEqual({
      id: 'already',
      name: 'already',
      state: 'running',
      changed: false,
    });
    expect(seen).toContain('POST /v1.41/containers/already/start');
  });

  it('answers not_found with the engine reason for an unknown container', async () => {
    const handlers = createContainerHandlers(createDockerEngine({ kind: 'unix', socketPath }));
    const error = await handlers['containers.action']({ id: 'gone', action: 'start' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AgentError);
    expect(error).toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('no container with name') as unknown,
    });
  });

  it('refuses an answer that is not JSON instead of passing it on', async () => {
    const handlers = createContainerHandlers(createDockerEngine({ kind: 'unix', socketPath }));
    await expect(handlers['containers.list']({})).rejects.toMatchObject({ code: 'failed' });
  });

  it('says unsupported when there is no engine at the socket', async () => {
    const handlers = createContainerHandlers(
      createDockerEngine({ kind: 'unix', socketPath: path.join(dir, 'absent.sock') }),
    );
    await expect(handlers['containers.list']({})).rejects.toMatchObject({
      code: 'unsupported',
      message: expect.stringContaining('no socket at') as unknown,
    });
  });

  it('refuses an id that is not an engine id or name before calling the engine', async () => {
    const handlers = createContainerHandlers(createDockerEngine({ kind: 'unix', socketPath }));
    await expect(
      handlers['containers.logs']({ id: '../../x', tail: 10, timestamps: false }),
    ).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    expect(seen).toEqual([]);
  });
});
