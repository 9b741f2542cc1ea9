import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

const unitFile = new URL('../../deploy/svc-hub.service', import.meta.url);
const unit = fs.readFileSync(unitFile, 'utf8');
const hasSystemdAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;

describe('apps/hub/deploy/svc-hub.service', () => {
  it('runs the hub as its own user, read-only but for its state, without privileges', () => {
    const settings = new Set(unit.split('\n').filter((line) => /^[A-Z]/.test(line)));
    for (const line of [
      'User=svc-hub',
      'NoNewPrivileges=true',
      'ProtectSystem=strict',
      'StateDirectory=svc-hub svc-hub-ca-key',
      'ReadWritePaths=/var/lib/svc-hub /var/lib/svc-hub-ca-key',
      'CapabilityBoundingSet=',
      'UMask=0077',
      'Environment=SVC_LOCAL_AGENT=false',
    ])
      expect(settings, line).toContain(line);
    expect(unit).not.toMatch(/^User=root/m);
    expect(unit).not.toMatch(/^AmbientCapabilities=CAP_/m);
  });

  it.skipIf(!hasSystemdAnalyze)('passes systemd-analyze verify', () => {
    const result = spawnSync('systemd-analyze', ['verify', unitFile.pathname], { encoding: 'utf8' });
    // verify also reports a missing ExecStart binary; the machine running tests need not have /usr/bin/node.
    const problems = `${result.stdout}${result.stderr}`
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.includes('/usr/bin/node'));
    expect(problems).toEqual([]);
  });
});
