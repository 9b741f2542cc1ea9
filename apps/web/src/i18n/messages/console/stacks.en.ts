/** The stacks page (features/stacks): Portainer's endpoints and their stacks. */
export const stacks = {
  'stacks.loadingEndpoints': 'Loading endpoints',
  'stacks.noManager': 'No stack manager',
  'stacks.noManagerText': 'A Portainer connector (Admin, Connectors) brings its endpoints here.',
  'stacks.loadingStacks': 'Loading the stacks of {name}',
  'stacks.none': 'No stacks',
  'stacks.noneText': 'Portainer manages no stack on this endpoint.',
  'stacks.tableLabel': 'Stacks on {name}',
  'stacks.stack': 'Stack',
  'stacks.type': 'Type',
  'stacks.status': 'Status',
  'stacks.variables': 'Variables',
  'stacks.created': 'Created',
  'stacks.updated': 'Updated',
  'stacks.statusName': '{status, select, active {active} inactive {inactive} other {{status}}}',
};
