export const roles = ['owner', 'admin', 'operator', 'viewer'] as const;
export type Role = (typeof roles)[number];

/** Roles that a key or user may be given through the API; `owner` is reserved for the bootstrap. */
export const assignableRoles = ['admin', 'operator', 'viewer'] as const satisfies readonly Role[];
export type AssignableRole = (typeof assignableRoles)[number];

/** Roles by what they may do, lowest first: the higher of two, and whether a role may hand out another. */
export const roleRank = { viewer: 0, operator: 1, admin: 2, owner: 3 } as const satisfies Record<
  Role,
  number
>;

export function isAdminRole(role: Role): boolean {
  return role === 'owner' || role === 'admin';
}

export const mutatingMethods = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
export function isMutatingMethod(method: string): boolean {
  return (mutatingMethods as readonly string[]).includes(method.toUpperCase());
}
