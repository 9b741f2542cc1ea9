import { describe, expect, it } from 'vitest';
import { parseNatsUrl } from '../platform/cluster/nats-url.js';
import { ConfigError, parseEnv } from './env.js';

const postgres = 'postgres://hub@db.example.lan/svc';

function problemOf(env: Record<string, string>): string {
  try {
    parseEnv(env, '/srv/svc');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('SVC_NATS_URL', () => {
  it('is off by default: the embedded cluster of one', () => {
    expect(parseEnv({}, '/srv/svc').natsUrl).toBeNull();
  });

  it('takes nats:// and tls:// URLs, with a user and password', () => {
    for (const url of [
      'nats://127.0.0.1:4222',
      'tls://nats.example.lan',
      'nats://svc:pw@nats.example.lan:4223',
    ]) {
      expect(parseEnv({ SVC_NATS_URL: url, SVC_DATABASE_URL: postgres }, '/srv/svc').natsUrl).toBe(url);
    }
  });

  it('refuses other schemes and shapes without quoting the URL', () => {
    for (const url of [
      'http://svc:hunter2@nats:4222',
      'nats://svc:hunter2@nats:4222/path',
      'not a url hunter2',
    ]) {
      const problem = problemOf({ SVC_NATS_URL: url, SVC_DATABASE_URL: postgres });
      expect(problem).toMatch(/^SVC_NATS_URL /);
      expect(problem).not.toContain('hunter2');
    }
  });

  it('refuses to start without a shared PostgreSQL', () => {
    expect(problemOf({ SVC_NATS_URL: 'nats://127.0.0.1:4222' })).toContain(
      'processes must share one PostgreSQL: set SVC_DATABASE_URL',
    );
  });

  it('is redacted for logs', () => {
    const parsed = parseNatsUrl('nats://svc:hunter2@nats.example.lan');
    expect(parsed).toMatchObject({
      ok: true,
      target: { server: 'nats.example.lan:4222', user: 'svc', pass: 'hunter2', tls: false },
    });
    expect(parsed.ok && parsed.target.redacted).toBe('nats://svc:***@nats.example.lan:4222');
  });
});

describe('SVC_SHUTDOWN_DRAIN_SECONDS', () => {
  it('is 5 s with a cluster bus and 0 for a single process, unless set', () => {
    expect(parseEnv({}, '/srv/svc').shutdownDrainMs).toBe(0);
    const cluster = { SVC_NATS_URL: 'nats://127.0.0.1:4222', SVC_DATABASE_URL: postgres };
    expect(parseEnv(cluster, '/srv/svc').shutdownDrainMs).toBe(5000);
    expect(parseEnv({ ...cluster, SVC_SHUTDOWN_DRAIN_SECONDS: '0' }, '/srv/svc').shutdownDrainMs).toBe(0);
    expect(parseEnv({ SVC_SHUTDOWN_DRAIN_SECONDS: '12' }, '/srv/svc').shutdownDrainMs).toBe(12_000);
  });

  it('refuses what is not a whole number of seconds up to 300', () => {
    for (const value of ['-1', '301', 'soon', '1.5']) {
      expect(problemOf({ SVC_SHUTDOWN_DRAIN_SECONDS: value })).toMatch(/SVC_SHUTDOWN_DRAIN_SECONDS/);
    }
  });
});

describe('SVC_CLUSTER_LEASE_SECONDS', () => {
  it('is 20 s unless set, and refuses what is outside 3–300 whole seconds', () => {
    expect(parseEnv({}, '/srv/svc').clusterLeaseMs).toBe(20_000);
    expect(parseEnv({ SVC_CLUSTER_LEASE_SECONDS: '4' }, '/srv/svc').clusterLeaseMs).toBe(4000);
    for (const value of ['2', '301', 'long', '7.5']) {
      expect(problemOf({ SVC_CLUSTER_LEASE_SECONDS: value })).toMatch(/SVC_CLUSTER_LEASE_SECONDS/);
    }
  });
});

describe('SVC_AGENT_MOVE_RATE', () => {
  it('is 1,000 agents a second unless set, and refuses what is outside 50–100,000', () => {
    expect(parseEnv({}, '/srv/svc').agentMoveRate).toBe(1000);
    expect(parseEnv({ SVC_AGENT_MOVE_RATE: '5000' }, '/srv/svc').agentMoveRate).toBe(5000);
    for (const value of ['49', '100001', 'fast', '2.5']) {
      expect(problemOf({ SVC_AGENT_MOVE_RATE: value })).toMatch(/SVC_AGENT_MOVE_RATE/);
    }
  });
});
