/**
 * Which node options the launcher starts the daemon with (bin/node-options.js, decision 0085): only `run`, only
 * where V8 has them, never twice, and never over an operator's own value or opt-out.
 */
import { describe, expect, it } from 'vitest';
import { daemonNodeOptions, relaunchOptions, tieringOptions, tuneVariable } from '../../bin/node-options.js';

const node24 = '13.6.233.17-node.44';
const run = {
  argv: ['run', '--config', '/etc/svc-agent/settings.json'],
  execArgv: [],
  env: {},
  v8Version: node24,
};

describe('the daemon node options', () => {
  it('starts `run` again with the tier-up options, after the options node already had', () => {
    expect(relaunchOptions({ ...run, execArgv: ['--import', 'hook.mjs'] })).toEqual([
      '--import',
      'hook.mjs',
      ...tieringOptions,
    ]);
  });

  it('runs as it is once the options are in effect: the second start does not start again', () => {
    const second = relaunchOptions(run) ?? [];
    expect(relaunchOptions({ ...run, execArgv: second })).toBeNull();
  });

  it('leaves the other commands, the opt-out and an operator value alone', () => {
    expect(relaunchOptions({ ...run, argv: ['enroll', '--hub', 'https://hub'] })).toBeNull();
    expect(relaunchOptions({ ...run, argv: [] })).toBeNull();
    for (const off of ['false', 'OFF', '0', 'no']) {
      expect(relaunchOptions({ ...run, env: { [tuneVariable]: off } })).toBeNull();
    }
    expect(relaunchOptions({ ...run, env: { [tuneVariable]: 'true' } })).toEqual([...tieringOptions]);
    expect(relaunchOptions({ ...run, execArgv: ['--invocation-count-for-maglev=500', '--maglev'] })).toEqual([
      '--invocation-count-for-maglev=500',
      '--maglev',
      '--invocation-count-for-turbofan=300000',
    ]);
  });

  it('gives V8 flags only to the V8 versions known to have them (an unknown one stops node)', () => {
    expect(daemonNodeOptions('11.3.244.8-node.33')).toEqual(tieringOptions);
    expect(daemonNodeOptions('12.4.254.21-node.33')).toEqual(tieringOptions);
    expect(daemonNodeOptions(node24)).toEqual(tieringOptions);
    expect(daemonNodeOptions('14.1.0')).toEqual([]);
    expect(relaunchOptions({ ...run, v8Version: '14.1.0' })).toBeNull();
  });
});
