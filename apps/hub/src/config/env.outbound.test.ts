import { describe, expect, it } from 'vitest';
import { ConfigError, parseEnv } from './env.js';

describe('SVC_OUTBOUND_* parsing', () => {
  it('starts with every opt-in off and private ranges on auto', () => {
    expect(parseEnv({}, '/srv/svc').outbound).toEqual({
      allowPrivate: 'auto',
      allowLoopback: false,
      allowLinkLocal: false,
      allowInsecure: false,
      hostAllowlist: null,
    });
  });

  it('reads each opt-in on its own', () => {
    const outbound = parseEnv(
      {
        SVC_OUTBOUND_ALLOW_PRIVATE: 'FALSE',
        SVC_OUTBOUND_ALLOW_LOOPBACK: 'true',
        SVC_OUTBOUND_ALLOW_LINK_LOCAL: '0',
        SVC_OUTBOUND_ALLOW_INSECURE: 'yes',
      },
      '/srv/svc',
    ).outbound;

    expect(outbound).toMatchObject({
      allowPrivate: 'false',
      allowLoopback: true,
      allowLinkLocal: false,
      allowInsecure: true,
    });
  });

  it.each([
    ['SVC_OUTBOUND_ALLOW_PRIVATE', 'sometimes'],
    ['SVC_OUTBOUND_ALLOW_LOOPBACK', 'maybe'],
    ['SVC_OUTBOUND_ALLOW_LINK_LOCAL', 'auto'],
    ['SVC_OUTBOUND_ALLOW_INSECURE', '2'],
  ])('refuses %s=%s at start', (name, value) => {
    expect(() => parseEnv({ [name]: value }, '/srv/svc')).toThrow(ConfigError);
  });
});
