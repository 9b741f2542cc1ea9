/**
 * The console's messages in English: the source catalogue. Its keys are the type of every other catalogue
 * (a key missing or extra there is a compile error) and of `t()` (a key not here is one too).
 *
 * Keys: `<area>.<what>`, the area being the feature folder or a shared part (common, shell, nav…). Messages
 * are ICU MessageFormat (the subset of ../message-format.ts): `{name}`, `{n, plural, one {# …} other {# …}}`,
 * `{x, select, a {…} other {…}}`. Typographic apostrophes (’) need no quoting. How to add one:
 * docs/decisions/0090-console-languages.md.
 */
export const en = {
  'language.label': 'Language',
  'language.pseudo': 'Pseudo-locale',

  'common.tryAgain': 'Try again',
  'common.cancel': 'Cancel',
  'common.working': 'Working…',
  'common.saving': 'Saving…',
  'common.edit': 'Edit',
  'common.editNamed': 'Edit {name}',
  'common.delete': 'Delete',
  'common.deleteNamed': 'Delete {name}',
  'common.remove': 'Remove',
  'common.removeNamed': 'Remove {name}',
  'common.copied': 'Copied',
  'common.copyRefused': 'The browser refused: select the text and copy it',
  'common.actions': 'Actions',
  'common.noSamples': '{label}: no samples',
  'common.lastSample': '{label}: last {value}',

  'loading.console': 'Loading the console',
  'loading.page': 'Loading the page',
  'loading.app': 'Loading svc hub',

  'pager.label': 'Pages',
  'pager.items': '{total, plural, one {# item} other {# items}}',
  'pager.position': 'Page {page} of {pages} ({total, plural, one {# item} other {# items}})',
  'pager.previous': 'Previous',
  'pager.next': 'Next',

  'time.never': 'never',

  'role.name':
    '{role, select, owner {owner} admin {admin} operator {operator} viewer {viewer} other {{role}}}',

  'shell.skipToContent': 'Skip to content',
  'shell.menu': 'Menu',
  'shell.search': 'Search',
  'shell.switchTheme': '{theme, select, dark {Switch to the dark theme} other {Switch to the light theme}}',
  'shell.userTitle': 'Signed in as {username} ({role}): your password and two-factor sign-in',
  'shell.signOut': 'Sign out',

  'nav.label': 'Main',
  'nav.currentSection': '(current section)',
  'nav.section':
    '{section, select, fleet {Fleet} automation {Automation} integrations {Integrations} other {Settings}}',
  'nav.dashboard': 'Dashboard',
  'nav.assets': 'Assets',
  'nav.run': 'Run',
  'nav.groups': 'Groups',
  'nav.actions': 'Actions',
  'nav.schedules': 'Schedules',
  'nav.maintenance': 'Maintenance',
  'nav.checks': 'Checks',
  'nav.alerts': 'Alerts',
  'nav.incidents': 'Incidents',
  'nav.updates': 'Updates',
  'nav.discovery': 'Discovery',
  'nav.virt': 'Virtualization',
  'nav.storage': 'Storage',
  'nav.backups': 'Backups',
  'nav.stacks': 'Stacks',
  'nav.home': 'Home',
  'nav.webhooks': 'Webhooks',
  'nav.notifications': 'Notifications',
  'nav.dependencies': 'Dependencies',
  'nav.desktops': 'Desktops',
  'nav.integrations': 'Integrations',
  'nav.connectors': 'Connectors',
  'nav.admin': 'Admin',
  'nav.sessions': 'Sessions',

  'notFound.title': 'Page not found',
  'notFound.text': 'The console has no page at {path}. {link}.',
  'notFound.link': 'Go to the dashboard',

  'search.title': 'Search assets and groups',
  'search.placeholder': 'Name, hostname, address or tag',
  'search.results': 'Results',
  'search.hitType': '{type, select, asset {asset} group {group} other {{type}}}',
  'search.noMatch': 'Nothing matches “{query}”.',
  'search.help': '{up} {down} to move, {enter} to open, {esc} to close.',

  'signIn.title': 'Sign in',
  'signIn.username': 'Username',
  'signIn.password': 'Password',
  'signIn.signingIn': 'Signing in…',
  'signIn.secondFactor': 'Second factor',
  'signIn.twoFactorTitle': 'Two-factor sign-in',
  'signIn.recoveryCode': 'Recovery code',
  'signIn.authenticatorCode': 'Code from your authenticator app',
  'signIn.checking': 'Checking…',
  'signIn.verify': 'Verify',
  'signIn.useAuthenticator': 'Use a code from the authenticator app',
  'signIn.useRecovery': 'Use a recovery code instead',
  'signIn.startAgain': 'Start again',
  'signIn.or': 'or',
  'signIn.sso': 'Sign in with single sign-on',
  'signIn.firstRunSummary': 'First sign-in on a new hub?',
  'signIn.firstRunText':
    'The owner account is {owner}. Its generated password is in the file {file} in the hub’s data directory ({dataDir} where {npmStart} ran, or {envVar}); the hub’s log names the file at first start. After signing in with it you choose your own password, and the hub deletes the file.',

  'live.state':
    '{state, select, connecting {Connecting…} live {Live} reconnecting {Reconnecting…} other {Stopped}}',
  'live.empty': 'Nothing yet',
  'live.emptyText': 'Changes to assets, groups and agents appear here as they happen.',
  'live.events': 'Live events',

  'metric.name': '{metric, select, cpu {CPU} memory {Memory} disk {Disk} other {Load}}',

  'dashboard.title': 'Dashboard',
  'dashboard.loadingStatus': 'Loading the fleet status',
  'dashboard.fleetStatus': 'Fleet status',
  'dashboard.tile':
    '{tile, select, assets {Assets} online {Online} offline {Offline} unknown {Unknown} groups {Groups} other {Alerts}}',
  'dashboard.loadingMetrics': 'Loading the fleet metrics',
  'dashboard.cpuAverage': 'CPU (average)',
  'dashboard.memoryUsed': 'Memory used',
  'dashboard.diskUsed': 'Disk used',
  'dashboard.reporting': 'Reporting',
  'dashboard.reportingValue': '{reporting} of {online} online, last {minutes} min',
  'dashboard.rankBy': 'Rank by',
  'dashboard.loadingAssetMetrics': 'Loading the assets’ metrics',
  'dashboard.noneReporting': 'No asset is reporting',
  'dashboard.noneReportingText':
    'Assets whose agent sent metrics in the last minutes show their CPU, memory and disk here.',
  'dashboard.busiestCaption': 'The fleet’s busiest assets by {metric} now, with their last hour',
  'dashboard.asset': 'Asset',
  'dashboard.load': 'load {load}',
  'dashboard.sparkline': '{name} {metric, select, cpu {CPU} memory {memory} other {disk}}',
  'dashboard.loadingAudit': 'Loading the audit trail',
  'dashboard.noAudit': 'No audit events yet',
  'dashboard.auditBy': 'by {actor}',
  'dashboard.auditByOn': 'by {actor} on {target}',
  'dashboard.fleetLoad': 'Fleet load',
  'dashboard.busiest': 'Busiest online assets',
  'dashboard.live': 'Live activity',
  'dashboard.recent': 'Recent activity',

  'asset.status': '{status, select, online {online} offline {offline} other {unknown}}',
  'asset.platform':
    '{platform, select, linux {Linux} windows {Windows} macos {macOS} freebsd {FreeBSD} other {other}}',

  'assets.title': 'Assets',
  'assets.count': '{n, plural, one {# asset} other {# assets}}',
  'assets.addDevice': 'Add device',
  'assets.filters': 'Filter assets',
  'assets.search': 'Search',
  'assets.searchPlaceholder': 'Name, hostname, address, tag',
  'assets.status': 'Status',
  'assets.anyStatus': 'Any status',
  'assets.platform': 'Platform',
  'assets.anyPlatform': 'Any platform',
  'assets.group': 'Group',
  'assets.allGroups': 'All groups',
  'assets.column':
    '{column, select, name {Name} status {Status} platform {Platform} addresses {Addresses} last_seen {Last seen} other {Tags}}',
  'assets.hubChip': 'hub',
  'assets.loading': 'Loading assets',
  'assets.noMatch': 'No asset matches these filters',
  'assets.none': 'No assets yet',
  'assets.noneHint': 'Enroll an agent (Administration, enrollment tokens) or add a device by hand.',
  'assets.deleteTitle': 'Delete {name}?',
  'assets.deleteConfirm': 'Delete asset',
  'assets.deleteText':
    'The asset, its metric history and its group memberships are removed; an agent on it is disconnected and must be enrolled again.',
};

export type MessageKey = keyof typeof en;
/** Every language's catalogue: exactly the English keys. */
export type Catalogue = Readonly<Record<MessageKey, string>>;
