import { describe, expect, it } from 'vitest';
import { baseName, joinPath, normalizeDir, parentPath, pathCrumbs } from './file-paths';

describe('files browser paths', () => {
  it('joins a directory and a name with one slash', () => {
    expect(joinPath('/', 'etc')).toBe('/etc');
    expect(joinPath('/etc', 'hosts')).toBe('/etc/hosts');
  });

  it('goes up one level, and stays at the root', () => {
    expect(parentPath('/etc/ssh')).toBe('/etc');
    expect(parentPath('/etc')).toBe('/');
    expect(parentPath('/')).toBe('/');
    expect(parentPath('/etc/ssh/')).toBe('/etc');
  });

  it('names the last segment', () => {
    expect(baseName('/etc/ssh/sshd_config')).toBe('sshd_config');
    expect(baseName('/')).toBe('/');
  });

  it('normalizes what a person types', () => {
    expect(normalizeDir('etc//ssh/')).toBe('/etc/ssh');
    expect(normalizeDir('  /var/log ')).toBe('/var/log');
    expect(normalizeDir('')).toBe('/');
  });

  it('lists the crumbs from the root down', () => {
    expect(pathCrumbs('/var/log/nginx')).toEqual([
      { name: '/', path: '/' },
      { name: 'var', path: '/var' },
      { name: 'log', path: '/var/log' },
      { name: 'nginx', path: '/var/log/nginx' },
    ]);
    expect(pathCrumbs('/')).toEqual([{ name: '/', path: '/' }]);
  });
});
