import { describe, expect, it } from 'vitest';
import type { HomeautoEntity } from '@svc/protocol';
import { actionFor } from './home-actions';

const entity = (entity_id: string, state: string, controllable = true): HomeautoEntity => ({
  entity_id,
  domain: entity_id.split('.')[0] ?? '',
  name: entity_id,
  state,
  unit: null,
  device_class: null,
  last_changed: '2026-11-25T20:00:00.000Z',
  controllable,
});

describe('the Home page actions', () => {
  it.each([
    ['light.kitchen', 'on', 'turn_off'],
    ['light.kitchen', 'off', 'turn_on'],
    ['switch.fan', 'on', 'turn_off'],
    ['scene.movie', 'scening', 'turn_on'],
    ['button.restart_router', 'unknown', 'press'],
    ['lock.front', 'locked', 'unlock'],
    ['cover.garage', 'open', 'close_cover'],
    ['light.kitchen', 'unavailable', null],
    ['climate.living', 'heat', null],
  ])('%s in state %s → %s', (id, state, service) => {
    expect(actionFor(entity(id, state))?.service ?? null).toBe(service);
  });

  it('offers nothing on an entity the hub does not control', () => {
    expect(actionFor(entity('sensor.temp', '21', false))).toBeNull();
  });
});
