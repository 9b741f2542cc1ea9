/** TanStack Query keys of maintenance windows (invalidated together on a change). */
export const maintenanceListKey = ['maintenance', 'windows'] as const;
export const maintenanceActiveKey = ['maintenance', 'active'] as const;
