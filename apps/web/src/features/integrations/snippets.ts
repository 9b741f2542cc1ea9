/**
 * The Integrations page's snippets, made from the hub's address as the browser reached it (the page's own
 * origin) and, when the hub serves its own CA, that CA's fingerprint. Pure, so each one is checked as text.
 */

export interface HubPlace {
  /** `https://hub.lan:8443`: the console's origin, which is the API's and the MCP server's too. */
  origin: string;
  /** SHA-256 of the hub's own CA (`/api/v1/tls/info`); null when its certificate is from elsewhere. */
  caFingerprint: string | null;
}

/** The MCP server's path on the hub (Streamable HTTP, docs/mcp.md). */
const mcpPath = '/mcp';
/** Prometheus HTTP service discovery's path on the hub. */
const prometheusTargetsPath = '/api/v2/integrations/prometheus/targets';
/** Where the hub serves its own CA certificate. */
const caPath = '/api/v1/tls/ca.crt';
/** The name the snippets give the hub's CA file once downloaded. */
const caFileName = 'svc-hub-ca.crt';

export function mcpUrl(hub: HubPlace): string {
  return `${hub.origin}${mcpPath}`;
}

/** JSON as people write it in an editor: two spaces, a final newline. */
function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The hub's CA downloaded and checked against its fingerprint; null when the hub has no CA of its own. */
export function caDownload(hub: HubPlace): string | null {
  if (!hub.caFingerprint) return null;
  return [
    `curl -fsSk -o ${caFileName} ${hub.origin}${caPath}`,
    `openssl x509 -in ${caFileName} -noout -fingerprint -sha256`,
    `# the SHA-256 fingerprint it prints must be ${hub.caFingerprint}`,
    '',
  ].join('\n');
}

/** `svc login` for this hub: the key typed at the prompt (never an argument), the CA pinned when it has one. */
export function svcLogin(hub: HubPlace): string {
  const pin = hub.caFingerprint ? ` --ca-fingerprint ${hub.caFingerprint}` : '';
  return `svc --hub ${hub.origin} login${pin}\n`;
}

/** Claude Code: the hub as a remote server over HTTP, the key from the shell's SVC_API_KEY. */
export function claudeCodeCommand(hub: HubPlace): string {
  return `claude mcp add --transport http svc ${mcpUrl(hub)} --header "Authorization: Bearer $SVC_API_KEY"\n`;
}

/** VS Code's `.vscode/mcp.json`: the key asked for once and kept in VS Code's secret storage, not the file. */
export function vscodeConfig(hub: HubPlace): string {
  return json({
    inputs: [{ type: 'promptString', id: 'svc-api-key', description: 'svc hub API key', password: true }],
    servers: {
      svc: {
        type: 'http',
        url: mcpUrl(hub),
        headers: { Authorization: 'Bearer ${input:svc-api-key}' },
      },
    },
  });
}

/** Cursor's `~/.cursor/mcp.json` (or `.cursor/mcp.json`): the key from the environment Cursor starts in. */
export function cursorConfig(hub: HubPlace): string {
  return json({
    mcpServers: {
      svc: { url: mcpUrl(hub), headers: { Authorization: 'Bearer ${env:SVC_API_KEY}' } },
    },
  });
}

/**
 * Clients that start a local command (Claude Desktop's `claude_desktop_config.json`, and any stdio client):
 * `svc mcp` bridges to the hub with the CLI's saved login, so neither the key nor the CA is in this file.
 */
export function stdioConfig(): string {
  return json({ mcpServers: { svc: { command: 'svc', args: ['mcp'] } } });
}

/** A scrape job whose targets come from the hub (`http_sd_configs`), the key in a file Prometheus reads. */
export function prometheusScrapeConfig(hub: HubPlace): string {
  const lines = [
    'scrape_configs:',
    '  - job_name: svc-hub',
    '    http_sd_configs:',
    `      - url: ${hub.origin}${prometheusTargetsPath}`,
    '        refresh_interval: 1m',
    '        authorization:',
    '          type: Bearer',
    '          credentials_file: /etc/prometheus/svc-hub.key',
  ];
  if (hub.caFingerprint) {
    lines.push('        tls_config:', `          ca_file: /etc/prometheus/${caFileName}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The executable Ansible runs as its inventory (docs/ansible.md). */
export function ansibleWrapper(): string {
  return '#!/bin/sh\nexec svc inventory "$@"\n';
}

/** The wrapper written and made executable, then Ansible pointed at it. */
export function ansibleCommands(): string {
  return [
    "cat > inventory.sh <<'EOF'",
    ansibleWrapper().trimEnd(),
    'EOF',
    'chmod +x inventory.sh',
    'ansible-inventory -i inventory.sh --graph',
    'ansible-playbook -i inventory.sh site.yml',
    '',
  ].join('\n');
}
