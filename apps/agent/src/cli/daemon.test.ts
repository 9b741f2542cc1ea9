import { describe, expect, it } from 'vitest';
import { plainRunOptions } from './daemon.js';

describe('the plain `run` the service starts', () => {
  it('takes run with --config and --log-level, in either form', () => {
    expect(plainRunOptions(['run'])).toEqual({});
    expect(plainRunOptions(['run', '--config', '/etc/svc-agent/settings.json'])).toEqual({
      config: '/etc/svc-agent/settings.json',
    });
    expect(plainRunOptions(['run', '--log-level=debug', '--config=/tmp/s.json'])).toEqual({
      config: '/tmp/s.json',
      logLevel: 'debug',
    });
  });

  it('leaves every other command line to the full parser', () => {
    for (const argv of [
      [],
      ['enroll', '--hub', 'https://hub'],
      ['--config', '/tmp/s.json', 'run'],
      ['run', '--help'],
      ['run', '--config'],
      ['run', '--config='],
      ['run', '--config', '--log-level'],
      ['run', '--config', 'a', '--config', 'b'],
      ['run', 'extra'],
    ]) {
      expect(plainRunOptions(argv)).toBeNull();
    }
  });
});
