/**
 * The Integrations page in chromium against a real hub: reached through the main navigation (at a laptop's
 * width and a phone's), its snippets made from the hub's own address and CA, each copy button putting the
 * snippet on the clipboard (the Prometheus one accepted by Debian's promtool), the key link for admins and
 * the hint for everyone else, no axe finding in either theme, and no CSP violation (the harness).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { accessibilityProblems } from './axe.js';
import { openNav, useConsole, type ConsoleHarness } from './harness.js';

const h = useConsole();

const clipboardText = (t: ConsoleHarness) => t.page.evaluate<string>('navigator.clipboard.readText()');

/** Clicks a snippet's copy button, waits for "Copied" beside it, and answers the clipboard's text. */
async function copySnippet(t: ConsoleHarness, title: string): Promise<string> {
  const snippet = t.page.getByRole('figure', { name: title, exact: true });
  await snippet.getByRole('button', { name: `Copy ${title}`, exact: true }).click();
  await snippet.getByText('Copied', { exact: true }).waitFor();
  const copied = await clipboardText(t);
  // What is copied is what the page shows.
  expect(copied.trimEnd()).toBe((await snippet.locator('pre').innerText()).trimEnd());
  return copied;
}

async function caFingerprint(t: ConsoleHarness): Promise<string> {
  const info = await t.api('GET', '/api/v1/tls/info');
  const fingerprint = (info.json.data as { ca_fingerprint_sha256: string | null }).ca_fingerprint_sha256;
  if (!fingerprint) throw new Error(`the hub serves no CA of its own: ${info.text}`);
  return fingerprint;
}

function promtoolCheck(config: string): Promise<{ code: number; output: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-web-promtool-'));
  const file = path.join(dir, 'prometheus.yml');
  fs.writeFileSync(file, config);
  return new Promise((resolve) => {
    execFile('/usr/bin/promtool', ['check', 'config', file], { timeout: 30_000 }, (error, stdout, stderr) => {
      fs.rmSync(dir, { recursive: true, force: true });
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr });
    });
  });
}

describe('the Integrations page', () => {
  it("shows snippets with this hub's address and CA, each copied as shown", async () => {
    const t = h();
    await t.signIn('owner');
    await t.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    await openNav(t.page, 'Integrations');
    await t.page.getByRole('heading', { name: 'Integrations', level: 1 }).waitFor();
    const origin = new URL(t.baseUrl).origin;
    const fingerprint = await caFingerprint(t);
    await t.page.getByRole('heading', { name: 'Ansible', level: 2 }).waitFor();
    await t.screenshot('integrations');

    // AI assistants: the MCP URL, then each client's snippet.
    expect(await t.page.getByLabel('MCP URL').inputValue()).toBe(`${origin}/mcp`);
    await t.page.getByRole('button', { name: 'Copy MCP URL' }).click();
    expect(await clipboardText(t)).toBe(`${origin}/mcp`);
    expect(await copySnippet(t, 'Claude Code command')).toBe(
      `claude mcp add --transport http svc ${origin}/mcp --header "Authorization: Bearer $SVC_API_KEY"\n`,
    );
    const vscode = JSON.parse(await copySnippet(t, 'VS Code configuration')) as {
      servers: { svc: { type: string; url: string } };
    };
    expect(vscode.servers.svc).toMatchObject({ type: 'http', url: `${origin}/mcp` });
    const cursor = JSON.parse(await copySnippet(t, 'Cursor configuration')) as {
      mcpServers: { svc: { url: string } };
    };
    expect(cursor.mcpServers.svc.url).toBe(`${origin}/mcp`);
    expect(await copySnippet(t, 'CA download')).toContain(
      `curl -fsSk -o svc-hub-ca.crt ${origin}/api/v1/tls/ca.crt`,
    );
    expect(await copySnippet(t, 'svc login command')).toBe(
      `svc --hub ${origin} login --ca-fingerprint ${fingerprint}\n`,
    );
    expect(JSON.parse(await copySnippet(t, 'stdio configuration'))).toEqual({
      mcpServers: { svc: { command: 'svc', args: ['mcp'] } },
    });

    // Prometheus: service discovery at this hub, with its CA, a configuration promtool accepts.
    const prometheus = await copySnippet(t, 'Prometheus scrape configuration');
    expect(prometheus).toContain(`url: ${origin}/api/v2/integrations/prometheus/targets`);
    expect(prometheus).toContain('ca_file: /etc/prometheus/svc-hub-ca.crt');
    const checked = await promtoolCheck(prometheus);
    expect(checked.code, checked.output).toBe(0);

    // Ansible: the wrapper and the commands.
    expect(await copySnippet(t, 'inventory.sh')).toBe('#!/bin/sh\nexec svc inventory "$@"\n');
    expect(await copySnippet(t, 'Ansible commands')).toContain('ansible-inventory -i inventory.sh --graph');

    // An admin is sent to the Prometheus settings, and to the keys page to make the key.
    await t.page.getByRole('link', { name: 'Admin → Prometheus' }).click();
    await t.page.getByRole('heading', { name: 'Prometheus', level: 1 }).waitFor();
    await t.page.goBack();
    await t.page.getByRole('link', { name: 'Create a key under Admin → API keys' }).first().click();
    await t.page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    expect(t.cspViolations).toEqual([]);
  });

  it('has no accessibility problems at 1280 and 390 px, reached through the menu at phone width', async () => {
    const t = h();
    await t.signIn('owner');
    const problems: string[] = [];
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      await t.page.setViewportSize(viewport);
      // From another page, as a user comes: the phone's menu then closes on arriving.
      await openNav(t.page, 'Dashboard');
      await openNav(t.page, 'Integrations');
      await t.page.getByRole('heading', { name: 'Ansible', level: 2 }).waitFor();
      // Nothing wider than the screen: snippets wrap rather than scroll sideways.
      const overflow = await t.page.evaluate<number>(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      expect(overflow, `at ${String(viewport.width)} px`).toBeLessThanOrEqual(0);
      problems.push(...(await accessibilityProblems(t.page, `integrations at ${String(viewport.width)} px`)));
    }
    await t.screenshot('integrations-phone');
    expect(problems).toEqual([]);
    expect(t.cspViolations).toEqual([]);
  });

  it('shows a viewer the snippets, and that an admin makes keys', async () => {
    const t = h();
    await t.signIn('viewer');
    await openNav(t.page, 'Integrations');
    await t.page.getByRole('heading', { name: 'AI assistants (MCP)', level: 2 }).waitFor();
    expect(await t.page.getByText('An admin creates keys under Admin → API keys.').count()).toBe(3);
    expect(await t.page.getByRole('link', { name: /Create a key/ }).count()).toBe(0);
    expect(await t.page.getByRole('link', { name: 'Admin → Prometheus' }).count()).toBe(0);
    expect(await t.page.getByLabel('MCP URL').inputValue()).toBe(`${new URL(t.baseUrl).origin}/mcp`);
  });
});
