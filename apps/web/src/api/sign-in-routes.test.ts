import { describe, expect, it } from 'vitest';
import { routes } from '@svc/protocol';
import { signInRoutes } from './sign-in-routes';

describe('signInRoutes', () => {
  it('has each contract as the route inventory has it', () => {
    for (const [name, target] of Object.entries(signInRoutes)) {
      const route = routes[name as keyof typeof signInRoutes];
      expect({ method: route.method, surface: route.surface, path: route.path }, name).toEqual(target);
    }
  });
});
