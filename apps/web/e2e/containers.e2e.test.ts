/**
 * The asset page's Containers tab in chromium against a real hub, with a fake agent answering the container
 * messages: the containers with state, health, image and ports; a stop asked for and confirmed; a
 * container's logs (stderr marked) and a TTY container's raw log; the compose stacks, images and volumes;
 * a viewer sees no control that changes anything and gets the hub's 403 for logs; the host's containers drawn
 * on the Dependencies page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRequestPayload, EngineContainer } from '@svc/protocol';
import { useConsole, type ConsoleHarness } from './harness.js';
import { connectFakeAgent, type EnrolledFake } from './fleet.js';

const h = useConsole();

const hex = (c: string) => c.repeat(64);

function container(over: Partial<EngineContainer> & Pick<EngineContainer, 'id' | 'name'>): EngineContainer {
  return {
    image: 'nginx:1.27-alpine',
    state: 'running',
    status: 'Up 3 hours',
    health: null,
    created_at: '2026-11-24T09:15:00.000Z',
    ports: [],
    compose_project: null,
    compose_service: null,
    ...over,
  };
}

const containers: EngineContainer[] = [
  container({
    id: hex('a'),
    name: 'shop-web-1',
    status: 'Up 3 hours (healthy)',
    health: 'healthy',
    ports: [{ private_port: 80, public_port: 8080, ip: '0.0.0.0', type: 'tcp' }],
    compose_project: 'shop',
    compose_service: 'web',
  }),
  container({
    id: hex('b'),
    name: 'shop-db-1',
    image: 'postgres:17',
    status: 'Up 3 hours (unhealthy)',
    health: 'unhealthy',
    ports: [{ private_port: 5432, public_port: null, ip: null, type: 'tcp' }],
    compose_project: 'shop',
    compose_service: 'db',
  }),
  container({
    id: hex('c'),
    name: 'grafana',
    image: 'grafana/grafana:11.3.0',
    ports: [{ private_port: 3000, public_port: 3000, ip: '0.0.0.0', type: 'tcp' }],
  }),
  container({
    id: hex('d'),
    name: 'backup-job',
    image: 'restic/restic:0.17.3',
    state: 'exited',
    status: 'Exited (0) 5 hours ago',
  }),
];

let fake: EnrolledFake;
const actions: AgentRequestPayload<'containers.action'>[] = [];
const logQueries: AgentRequestPayload<'containers.logs'>[] = [];

beforeAll(async () => {
  const t = h();
  fake = await connectFakeAgent(
    t,
    'docker-01',
    {
      'containers.list': () => ({ containers, truncated: false }),
      'containers.action': (payload) => {
        actions.push(payload);
        return { id: payload.id, name: 'grafana', state: 'exited', changed: true };
      },
      'containers.logs': (payload) => {
        logQueries.push(payload);
        return payload.id === hex('c')
          ? {
              id: payload.id,
              tty: false,
              entries: [
                { stream: 'stdout', text: 'logger=server t=2026-11-25T08:00:00Z msg="HTTP Server Listen"' },
                { stream: 'stderr', text: 'logger=sqlstore msg="database is locked, retrying"' },
                { stream: 'stdout', text: 'logger=http t=2026-11-25T08:00:05Z status=200 path=/api/health' },
              ],
              truncated: false,
            }
          : {
              id: payload.id,
              tty: true,
              entries: [{ stream: 'tty', text: 'ready on :80' }],
              truncated: false,
            };
      },
      'containers.images': () => ({
        images: [
          {
            id: `sha256:${hex('1')}`,
            tags: ['nginx:1.27-alpine'],
            size_bytes: 48_000_000,
            created_at: null,
            containers: 1,
          },
          {
            id: `sha256:${hex('2')}`,
            tags: ['postgres:17'],
            size_bytes: 436_000_000,
            created_at: null,
            containers: 1,
          },
        ],
        truncated: false,
      }),
      'containers.volumes': () => ({
        volumes: [
          {
            name: 'shop_pgdata',
            driver: 'local',
            mountpoint: '/var/lib/docker/volumes/shop_pgdata/_data',
            created_at: '2026-11-01T10:00:00.000Z',
            compose_project: 'shop',
          },
        ],
        truncated: false,
      }),
    },
    { capabilities: ['exec', 'metrics', 'containers'] },
  );
}, 60_000);

afterAll(() => {
  fake.agent.close();
});

async function openContainers(t: ConsoleHarness): Promise<void> {
  await t.page.goto(`${t.baseUrl}/assets/${fake.assetId}/containers`);
  await t.page.getByRole('table', { name: 'Containers' }).getByText('shop-web-1').waitFor();
}

describe('the Containers tab', () => {
  it('lists containers with state, health and ports, and stops one after asking', async () => {
    const t = h();
    await t.signIn('owner');
    await openContainers(t);
    const table = t.page.getByRole('table', { name: 'Containers' });
    await table.getByText('(unhealthy)', { exact: true }).waitFor();
    await table.getByText('0.0.0.0:8080→80/tcp').waitFor();
    await t.screenshot('containers');

    await t.page.getByRole('button', { name: 'Stop grafana' }).click();
    const dialog = t.page.getByRole('dialog', { name: 'Stop grafana on docker-01?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(actions).toEqual([]);

    await t.page.getByRole('button', { name: 'Stop grafana' }).click();
    await t.page.getByRole('button', { name: 'Stop container' }).click();
    await t.page.getByRole('status').filter({ hasText: 'grafana: stop done, now exited' }).waitFor();
    expect(actions).toEqual([{ id: hex('c'), action: 'stop' }]);
    expect(t.cspViolations).toEqual([]);
  }, 60_000);

  it("reads a container's logs, stderr marked, and a TTY container's raw log", async () => {
    const t = h();
    await t.signIn('owner');
    await openContainers(t);

    await t.page.getByRole('button', { name: 'Logs of grafana' }).click();
    const panel = t.page.getByRole('region', { name: 'Logs of grafana' });
    await panel.getByText('database is locked, retrying').waitFor();
    await panel.getByText('Standard output and standard error').waitFor();
    await panel.getByLabel('Last lines').fill('50');
    await panel.getByRole('button', { name: 'Show logs' }).click();
    await expect.poll(() => logQueries.at(-1)).toEqual({ id: hex('c'), tail: 50, timestamps: false });
    await t.screenshot('containers-logs');

    await t.page.getByRole('button', { name: 'Logs of shop-web-1' }).click();
    const tty = t.page.getByRole('region', { name: 'Logs of shop-web-1' });
    await tty.getByText('ready on :80').waitFor();
    await tty.getByText('This container has a terminal').waitFor();
  }, 60_000);

  it('shows the compose stacks, the images and the volumes', async () => {
    const t = h();
    await t.signIn('owner');
    await openContainers(t);

    await t.page.getByRole('button', { name: 'Stacks', exact: true }).click();
    const stacks = t.page.getByRole('list', { name: 'Stacks' });
    await stacks.getByText('2/2 running').waitFor();
    await stacks.getByText('Services: db, web').waitFor();
    await t.screenshot('containers-stacks');

    await t.page.getByRole('button', { name: 'Images', exact: true }).click();
    await t.page.getByRole('table', { name: 'Images' }).getByText('postgres:17').waitFor();
    await t.page.getByRole('button', { name: 'Volumes', exact: true }).click();
    await t.page.getByRole('table', { name: 'Volumes' }).getByText('shop_pgdata', { exact: true }).waitFor();
  }, 60_000);

  it("draws the host's containers on the Dependencies page", async () => {
    const t = h();
    await t.signIn('viewer');
    await t.page.goto(`${t.baseUrl}/dependencies`);
    const node = t.page.locator('.graph-node.node-container', { hasText: 'shop-web-1' });
    await node.waitFor();
    expect(await node.locator('title').textContent()).toBe('shop-web-1 (container, running)');
    await t.page.locator('.graph-edge.edge-runs').first().waitFor({ state: 'attached' });
    expect(await t.page.locator('.graph-edge.edge-runs').count()).toBe(containers.length);
    expect(t.cspViolations).toEqual([]);
  }, 60_000);

  it('shows a viewer no action buttons and the hub refusing logs', async () => {
    const t = h();
    await t.signIn('viewer');
    await openContainers(t);
    expect(await t.page.getByRole('button', { name: /^(Start|Stop|Restart) / }).count()).toBe(0);
    await t.page.getByRole('button', { name: 'Logs of grafana' }).click();
    await t.page.getByRole('alert').filter({ hasText: '403' }).waitFor();
  }, 60_000);
});
