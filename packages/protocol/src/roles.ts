export const roles = ['owner', 'admin', 'operator', 'viewer'] as const;
export type Role = (typeof roles)[number];

/** Roles that a key or user may be given through the API; `owner` is reserved for the bootstrap. */
export const assignableRoles = ['admin', 'operator', 'viewer'] as const satisfies readonly Role[];
export type AssignableRole = (typeof assignableRoles)[number];

export function isAdminRole(role: Role): boolean {
  return role === 'owner' || role === 'admin';
}

export const mutatingMethods = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
export function isMutatingMethod(method: string): boolean {
  return (mutatingMethods as readonly string[]).includes(method.toUpperCase());
}
