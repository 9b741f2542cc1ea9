import { describe, expect, it } from 'vitest';
import { settingInput, valueFromDraft } from './setting-input';

describe('how a runtime setting is edited', () => {
  it('reads the kind of control from the protocol catalog', () => {
    expect(settingInput({ key: 'policy.structured_enabled', default: true })).toEqual({ kind: 'boolean' });
    expect(settingInput({ key: 'retention.metrics_days', default: 7 })).toEqual({
      kind: 'integer',
      minimum: 1,
      maximum: 3650,
    });
    expect(settingInput({ key: 'security.outbound_allow_private', default: 'auto' })).toEqual({
      kind: 'choice',
      choices: ['auto', 'true', 'false'],
    });
  });

  it('edits a key the console does not know as text', () => {
    expect(settingInput({ key: 'future.setting', default: 'x' })).toEqual({ kind: 'text' });
  });

  it('sends numbers as numbers and anything else as typed, for the hub to judge', () => {
    const integer = settingInput({ key: 'retention.metrics_days', default: 7 });
    expect(valueFromDraft(integer, ' 14 ')).toBe(14);
    expect(valueFromDraft(integer, '14 days')).toBe('14 days');
    expect(valueFromDraft({ kind: 'boolean' }, false)).toBe(false);
  });
});
