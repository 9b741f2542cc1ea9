/**
 * signin benchmark: a hub in a process of its own (bcrypt cost 12, rate limits on, TLS disabled, HTTP on loopback behind a
 * "trusted proxy" at 127.0.0.1 so each request names its client), so the load does not share its event loop.
 * Prints one line `SIGNIN_HUB {"port":…,"password":"…"}` when it serves; stops on SIGTERM.
 */
import { startTestHub } from '@svc/testkit';

const t = await startTestHub({
  listen: true,
  // Production settings where they matter here: bcrypt cost 12, and the per-IP rate limit (600/min) on.
  env: { SVC_BCRYPT_COST: '12', SVC_TRUSTED_PROXIES: '127.0.0.1', SVC_RATE_LIMIT_ENABLED: 'true' },
});
process.stdout.write(
  `SIGNIN_HUB ${JSON.stringify({ port: t.servers?.httpPort ?? 0, password: t.ownerPassword })}\n`,
);
process.once('SIGTERM', () => {
  void t.close().then(() => process.exit(0));
});
