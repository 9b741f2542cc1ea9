import { describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { serviceCallProblem, toEntities } from './homeauto.mapping.js';
import { HomeAssistantStates, type HomeAssistantState } from './homeauto.upstream.js';

const state = (
  entity_id: string,
  value: string,
  attributes: Record<string, unknown> = {},
): HomeAssistantState => ({
  entity_id,
  state: value,
  attributes,
  last_changed: '2026-11-25T20:00:00.123456+00:00',
  last_updated: '2026-11-25T20:00:00.123456+00:00',
});

describe('Home Assistant states', () => {
  const states = [
    state('sensor.rack_temperature', '27.5', {
      friendly_name: 'Rack temperature',
      unit_of_measurement: '°C',
      device_class: 'temperature',
    }),
    state('light.kitchen', 'off', { friendly_name: 'Kitchen' }),
    state('sensor.ups_load', 'unavailable', {}),
    state('Bad.Entity', 'on', {}),
  ];

  it('keeps state as text, names from friendly_name, and marks device domains controllable', () => {
    expect(Value.Check(HomeAssistantStates, states)).toBe(true);
    expect(toEntities(states)).toEqual([
      {
        entity_id: 'light.kitchen',
        domain: 'light',
        name: 'Kitchen',
        state: 'off',
        unit: null,
        device_class: null,
        last_changed: '2026-11-25T20:00:00.123Z',
        controllable: true,
      },
      expect.objectContaining({
        entity_id: 'sensor.rack_temperature',
        state: '27.5',
        unit: '°C',
        controllable: false,
      }),
      expect.objectContaining({
        entity_id: 'sensor.ups_load',
        name: 'sensor.ups_load',
        state: 'unavailable',
      }),
    ]);
  });

  it('filters by domain', () => {
    expect(toEntities(states, 'light').map((e) => e.entity_id)).toEqual(['light.kitchen']);
  });

  it('refuses a state that is not text', () => {
    expect(Value.Check(HomeAssistantStates, [{ ...state('sensor.x', '1'), state: 1 }])).toBe(false);
  });
});

describe('service calls', () => {
  it.each([
    ['light', ['light.kitchen'], undefined, null],
    ['light', ['light.kitchen'], { brightness_pct: 40 }, null],
    ['light', ['switch.rack_fan'], undefined, 'entity_id'],
    ['homeassistant', ['light.kitchen'], undefined, 'domain'],
    ['shell_command', ['shell_command.x'], undefined, 'domain'],
    ['light', ['light.kitchen'], { area_id: 'living_room' }, 'data.area_id'],
  ])('%s on %j with %j → problem at %s', (domain, entities, data, field) => {
    expect(serviceCallProblem(domain, entities, data)?.field ?? null).toBe(field);
  });
});
