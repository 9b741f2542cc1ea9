import { describe, expect, it } from 'vitest';
import { enrollCommand } from './enroll-command';

describe('the enroll command shown for a new token', () => {
  it('pins the CA when the hub serves its own', () => {
    expect(enrollCommand('https://hub.example.net:8443', 'sve_abc', 'AB:CD')).toBe(
      'svc-agent enroll --hub https://hub.example.net:8443 --token sve_abc --ca-fingerprint AB:CD',
    );
  });

  it('leaves the pin out when the hub serves no CA of its own (system CAs check it)', () => {
    expect(enrollCommand('https://hub.example.net', 'sve_abc', null)).toBe(
      'svc-agent enroll --hub https://hub.example.net --token sve_abc',
    );
  });
});
