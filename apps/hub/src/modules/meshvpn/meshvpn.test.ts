/**
 * `GET /api/settings/meshvpn/serve` against a fake `tailscale` script in a temp dir: what a signed-in person
 * sees for each state of the hub host's Tailscale, and the CLI run safely (argv, timeout, bounded output).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { MeshvpnServe } from '@svc/protocol';
import { startTestHub } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';
import { createTailscaleCli } from '../../connectors/meshvpn/meshvpn.client.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-fake-tailscale-'));
const binary = path.join(dir, 'tailscale');
const argsLog = path.join(dir, 'args.log');

/**
 * The fake CLI: answers `status` and `serve status` from files beside it (stdout, stderr, exit code), logs
 * its argv one per line.
 */
fs.writeFileSync(
  binary,
  `#!/bin/sh
d=$(dirname "$0")
printf '%s\\n' "$*" >> "$d/args.log"
case "$1" in
  status) n=status ;;
  serve) n=serve ;;
  *) echo "unknown command $1" >&2; exit 2 ;;
esac
[ -f "$d/$n.sleep" ] && sleep "$(cat "$d/$n.sleep")"
[ -f "$d/$n.out" ] && cat "$d/$n.out"
[ -f "$d/$n.err" ] && cat "$d/$n.err" >&2
exit "$(cat "$d/$n.code" 2>/dev/null || echo 0)"
`,
  { mode: 0o755 },
);

function answer(command: 'status' | 'serve', out: unknown, code = 0, stderr = ''): void {
  fs.writeFileSync(path.join(dir, `${command}.out`), typeof out === 'string' ? out : JSON.stringify(out));
  fs.writeFileSync(path.join(dir, `${command}.code`), String(code));
  fs.writeFileSync(path.join(dir, `${command}.err`), stderr);
}

const running = {
  BackendState: 'Running',
  Version: '1.90.6',
  TailscaleIPs: ['100.64.0.7'],
  Self: { HostName: 'hub', DNSName: 'hub.tail1234.ts.net.' },
  CurrentTailnet: { Name: 'homelab', MagicDNSSuffix: 'tail1234.ts.net', MagicDNSEnabled: true },
  CertDomains: ['hub.tail1234.ts.net'],
};

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  for (const f of fs.readdirSync(dir)) if (f !== 'tailscale') fs.rmSync(path.join(dir, f));
});

describe('mesh VPN serve status', () => {
  const use = useTestHub({ env: { SVC_TAILSCALE_BIN: binary } }, 'per-test');
  const serve = async (key?: string) => {
    const res = await use().request('GET', '/api/settings/meshvpn/serve', key ? { key } : {});
    return { status: res.status, data: res.json.data as MeshvpnServe, json: res.json };
  };

  it('shows the tailnet HTTPS host and what serve publishes', async () => {
    answer('status', running);
    answer('serve', {
      TCP: { '443': { HTTPS: true } },
      Web: { 'hub.tail1234.ts.net:443': { Handlers: { '/': { Proxy: 'http://127.0.0.1:8080' } } } },
    });
    const res = await serve();
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({
      available: true,
      https_host: 'hub.tail1234.ts.net',
      dns_name: 'hub.tail1234.ts.net',
      serve: {
        configured: true,
        tcp_ports: [443],
        handlers: [{ listener: 'hub.tail1234.ts.net:443', path: '/', target: 'http://127.0.0.1:8080' }],
      },
    });
    // argv as written, no shell: peers left out of the status.
    expect(fs.readFileSync(argsLog, 'utf8').trim().split('\n')).toEqual([
      'status --json --peers=false',
      'serve status --json',
    ]);
  });

  it('asks the CLI at most once per 5 s, whoever looks', async () => {
    answer('status', running);
    answer('serve', 'null');
    await serve();
    await serve();
    const runs = () => fs.readFileSync(argsLog, 'utf8').trim().split('\n').length;
    expect(runs()).toBe(2);
    use().clock.advance(5_000);
    await serve();
    expect(runs()).toBe(4);
  });

  it('is answered to any signed-in caller, a viewer too, and to nobody else', async () => {
    answer('status', running);
    answer('serve', 'null');
    const viewer = await use().createKey({ role: 'viewer', scopes: ['hub:read'] });
    expect((await serve(viewer.raw_key)).status).toBe(200);
    const anonymous = await use().request('GET', '/api/settings/meshvpn/serve', { key: null });
    expect(anonymous.status).toBe(401);
  });

  it.each([
    ['not logged in', { ...running, BackendState: 'NeedsLogin', CertDomains: null }, 0, '', 'not_logged_in'],
    ['stopped', { ...running, BackendState: 'Stopped' }, 0, '', 'stopped'],
    [
      'daemon not running',
      '',
      1,
      "failed to connect to local tailscaled; it doesn't appear to be running (sudo systemctl start tailscaled ?)\n",
      'daemon_not_running',
    ],
    ['unreadable output', '<html>', 0, '', 'error'],
  ])('says clearly when %s', async (_name, out, code, stderr, reason) => {
    answer('status', out, code, stderr);
    const res = await serve();
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ available: false, reason });
    expect(res.data.message).toEqual(expect.any(String));
  });

  it('says when the CLI is not installed', async () => {
    const t = await startTestHub({ env: { SVC_TAILSCALE_BIN: path.join(dir, 'not-installed') } });
    try {
      const res = await t.request('GET', '/api/settings/meshvpn/serve');
      expect(res.status).toBe(200);
      expect(res.json.data).toMatchObject({ available: false, reason: 'not_installed', https_host: null });
    } finally {
      await t.close();
    }
  });
});

describe('tailscale CLI client', () => {
  it('reports an absent binary, a hang and an overlong output as outcomes, not throws', async () => {
    expect((await createTailscaleCli({ binary: path.join(dir, 'absent') }).status()).kind).toBe('not_found');

    fs.writeFileSync(path.join(dir, 'status.sleep'), '5');
    const slow = await createTailscaleCli({ binary, timeoutMs: 200 }).status();
    expect(slow.kind).toBe('timeout');

    answer('status', 'x'.repeat(4096));
    fs.rmSync(path.join(dir, 'status.sleep'));
    const large = await createTailscaleCli({ binary, maxOutputBytes: 1024 }).status();
    expect(large.kind).toBe('too_large');
  });

  it('takes a hostile-looking binary path literally (no shell)', async () => {
    const outcome = await createTailscaleCli({ binary: `${binary}; touch ${dir}/pwned` }).status();
    expect(outcome.kind).toBe('not_found');
    expect(fs.existsSync(path.join(dir, 'pwned'))).toBe(false);
  });
});
