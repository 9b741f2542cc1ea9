/**
 * What the hub logs once it listens: where it serves, how to enroll an agent, and (last) where to open the
 * web console. The fingerprint to pin is
 * the CA's, which stays the same for ten years; the server certificate's changes at every renewal, and an
 * agent pinning it is refused at enrollment, so it is never shown where a user would copy it from.
 */
import os from 'node:os';
import { isIP } from 'node:net';
import type { HubConfig } from './config/env.js';
import type { Hub } from './hub.js';
import type { RunningServers } from './server.js';

export interface BannerLine {
  fields: Record<string, unknown>;
  message: string;
}

/** A name agents can reach the hub by: the configured host, or for a wildcard listener a name it certifies. */
function reachableHost(config: Pick<HubConfig, 'host' | 'tlsHostnames'>): string {
  const wildcard = ['0.0.0.0', '::', ''].includes(config.host);
  const host = wildcard ? (config.tlsHostnames[0] ?? os.hostname()) : config.host;
  return isIP(host) === 6 ? `[${host}]` : host;
}

/** Where a browser on this machine opens the console: localhost for a wildcard or loopback listener. */
function consoleUrl(host: string, scheme: 'http' | 'https', port: number): string {
  const local = ['0.0.0.0', '::', '', '127.0.0.1', '::1'].includes(host);
  const name = local ? 'localhost' : isIP(host) === 6 ? `[${host}]` : host;
  return `${scheme}://${name}:${port}/`;
}

export function startupBanner(
  hub: Pick<Hub, 'tls' | 'database'>,
  config: Pick<HubConfig, 'host' | 'tlsHostnames' | 'tlsMode' | 'dataDir'>,
  running: Pick<RunningServers, 'httpsPort' | 'httpPort'>,
): BannerLine[] {
  if (running.httpsPort === null) {
    const url = consoleUrl(config.host, 'http', running.httpPort);
    return [
      {
        fields: { mode: config.tlsMode, database: hub.database.dialect, data_dir: config.dataDir },
        message: `svc hub on http://${config.host}:${running.httpPort} (TLS disabled: keys only from loopback or a trusted TLS proxy)`,
      },
      { fields: { url }, message: `web console: ${url}` },
    ];
  }
  const status = hub.tls.status();
  const hubUrl = `https://${reachableHost(config)}:${running.httpsPort}`;
  const caFingerprint = status.ca_download ? (status.ca?.fingerprint_sha256 ?? null) : null;
  const token = '<make one: POST /api/v2/enrollment-tokens>';
  const lines: BannerLine[] = [
    {
      fields: {
        mode: config.tlsMode,
        source: status.source,
        ca_fingerprint_sha256: caFingerprint,
        database: hub.database.dialect,
        data_dir: config.dataDir,
      },
      message:
        caFingerprint === null
          ? `svc hub on https://${config.host}:${running.httpsPort} (HTTP ${running.httpPort} redirects); its certificate is not from the hub's own CA, so agents check it against the system's CAs`
          : `svc hub on https://${config.host}:${running.httpsPort} (HTTP ${running.httpPort} redirects). CA certificate: ${hubUrl}/api/v1/tls/ca.crt, CA fingerprint (SHA-256): ${caFingerprint}`,
    },
  ];
  lines.push({
    fields: {},
    message:
      caFingerprint === null
        ? `enroll an agent: svc-agent enroll --hub ${hubUrl} --token ${token}`
        : `enroll an agent: svc-agent enroll --hub ${hubUrl} --token ${token} --ca-fingerprint ${caFingerprint}`,
  });
  // Last, so it is the line a newcomer sees when `npm start` has settled.
  const url = consoleUrl(config.host, 'https', running.httpsPort);
  lines.push({ fields: { url }, message: `web console: ${url}` });
  return lines;
}
