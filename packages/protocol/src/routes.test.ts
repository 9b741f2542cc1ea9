import { describe, expect, it } from 'vitest';
import { plannedContracts } from './api/planned.js';
import type { RouteContract } from './contract.js';
import { areaOf, contractAreas, routeList, routes } from './routes.js';

describe('the route inventory, composed from its areas', () => {
  it('names every contract of an area file after the area, and keeps its key and name the same', () => {
    for (const [area, contracts] of Object.entries(contractAreas)) {
      for (const [key, contract] of Object.entries<RouteContract>(contracts)) {
        expect(contract.name, `${area}: ${key}`).toBe(key);
        expect(areaOf(contract.name), contract.name).toBe(area);
      }
    }
  });

  it('holds every contract once: the built areas and the planned ones, none in two places', () => {
    const built = Object.values(contractAreas).flatMap((contracts) => Object.keys(contracts));
    const planned = Object.keys(plannedContracts);

    expect(new Set([...built, ...planned]).size).toBe(built.length + planned.length);
    expect(Object.keys(routes).sort()).toEqual([...built, ...planned].sort());
    expect(routeList).toHaveLength(built.length + planned.length);
  });

  it('marks exactly the contracts of planned.ts as planned, and gives built ones their answer', () => {
    for (const contract of routeList) {
      const isPlanned = Object.hasOwn(plannedContracts, contract.name);
      expect(contract.plannedIn !== undefined, contract.name).toBe(isPlanned);
      if (!isPlanned)
        expect(contract.response !== undefined || contract.raw === true, contract.name).toBe(true);
    }
  });

  it('keeps operation ids unique, across the renamed contracts and the rest', () => {
    const ids = routeList.map((contract) => contract.operationId ?? contract.name);

    expect(new Set(ids).size).toBe(ids.length);
  });

  it('reads the area of a name up to its first dot', () => {
    expect(areaOf('system.startService')).toBe('system');
    expect(areaOf('whoami')).toBe('whoami');
  });
});
