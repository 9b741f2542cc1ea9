import { describe, expect, it } from 'vitest';
import {
  ansibleCommands,
  ansibleWrapper,
  caDownload,
  claudeCodeCommand,
  cursorConfig,
  mcpUrl,
  prometheusScrapeConfig,
  stdioConfig,
  svcLogin,
  vscodeConfig,
} from './snippets';

const fingerprint = `${'AB:'.repeat(31)}CD`;
const ownCa = { origin: 'https://hub.lan:8443', caFingerprint: fingerprint };
const publicCa = { origin: 'https://hub.example.com', caFingerprint: null };

describe('the MCP snippets', () => {
  it("name the hub's /mcp on the page's origin", () => {
    expect(mcpUrl(ownCa)).toBe('https://hub.lan:8443/mcp');
    expect(claudeCodeCommand(ownCa)).toBe(
      'claude mcp add --transport http svc https://hub.lan:8443/mcp --header "Authorization: Bearer $SVC_API_KEY"\n',
    );
  });

  it('give VS Code an http server whose key it asks for, never one written in the file', () => {
    expect(JSON.parse(vscodeConfig(ownCa))).toEqual({
      inputs: [{ type: 'promptString', id: 'svc-api-key', description: 'svc hub API key', password: true }],
      servers: {
        svc: {
          type: 'http',
          url: 'https://hub.lan:8443/mcp',
          headers: { Authorization: 'Bearer ${input:svc-api-key}' },
        },
      },
    });
  });

  it("give Cursor the URL and the key from its environment, and stdio clients svc mcp's bridge", () => {
    expect(JSON.parse(cursorConfig(publicCa))).toEqual({
      mcpServers: {
        svc: {
          url: 'https://hub.example.com/mcp',
          headers: { Authorization: 'Bearer ${env:SVC_API_KEY}' },
        },
      },
    });
    expect(JSON.parse(stdioConfig())).toEqual({ mcpServers: { svc: { command: 'svc', args: ['mcp'] } } });
  });
});

describe("the hub's own CA", () => {
  it('is downloaded and checked against its fingerprint, and pinned at svc login', () => {
    expect(caDownload(ownCa)).toBe(
      [
        'curl -fsSk -o svc-hub-ca.crt https://hub.lan:8443/api/v1/tls/ca.crt',
        'openssl x509 -in svc-hub-ca.crt -noout -fingerprint -sha256',
        `# the SHA-256 fingerprint it prints must be ${fingerprint}`,
        '',
      ].join('\n'),
    );
    expect(svcLogin(ownCa)).toBe(`svc --hub https://hub.lan:8443 login --ca-fingerprint ${fingerprint}\n`);
  });

  it('is left out for a hub whose certificate the system may trust', () => {
    expect(caDownload(publicCa)).toBeNull();
    expect(svcLogin(publicCa)).toBe('svc --hub https://hub.example.com login\n');
    expect(prometheusScrapeConfig(publicCa)).not.toContain('tls_config');
  });
});

describe('the Prometheus snippet', () => {
  it('discovers targets at the hub with a bearer key from a file, and its CA when it has one', () => {
    expect(prometheusScrapeConfig(ownCa)).toBe(
      [
        'scrape_configs:',
        '  - job_name: svc-hub',
        '    http_sd_configs:',
        '      - url: https://hub.lan:8443/api/v2/integrations/prometheus/targets',
        '        refresh_interval: 1m',
        '        authorization:',
        '          type: Bearer',
        '          credentials_file: /etc/prometheus/svc-hub.key',
        '        tls_config:',
        '          ca_file: /etc/prometheus/svc-hub-ca.crt',
        '',
      ].join('\n'),
    );
  });
});

describe('the Ansible snippets', () => {
  it('write the wrapper docs/ansible.md shows and point ansible-inventory at it', () => {
    expect(ansibleWrapper()).toBe('#!/bin/sh\nexec svc inventory "$@"\n');
    expect(ansibleCommands()).toContain(
      `cat > inventory.sh <<'EOF'\n#!/bin/sh\nexec svc inventory "$@"\nEOF\n`,
    );
    expect(ansibleCommands()).toContain('chmod +x inventory.sh\nansible-inventory -i inventory.sh --graph\n');
  });
});
