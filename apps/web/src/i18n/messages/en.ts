/**
 * The console's messages in English: the source catalogue. Its keys are the type of every other catalogue
 * (a key missing or extra there is a compile error) and of `t()` (a key not here is one too).
 *
 * This is the entry catalogue, in the sign-in page's chunk: keep it to what the sign-in page, the shell and the
 * shared components say. The pages of the signed-in console have theirs in ./console/ (a chunk loaded with
 * them), one file per area and language.
 *
 * Keys: `<area>.<what>`, the area being the feature folder or a shared part (common, shell, nav…). Messages
 * are ICU MessageFormat (the subset of ../message-format.ts): `{name}`, `{n, plural, one {# …} other {# …}}`,
 * `{x, select, a {…} other {…}}`. Typographic apostrophes (’) need no quoting. How to add one:
 * docs/decisions/0090-console-languages.md.
 */
import type { ConsoleKey } from './console/en.js';

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
  'copy.named': 'Copy {label}',

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

  'chart.zoneSwitch': 'Time zone',
  'chart.zoneViewer': 'Yours ({zone})',
  'chart.zoneHub': 'The hub’s ({zone})',
  'chart.timeInZone': '{time} ({zone})',
  'chart.timeAxis': 'Time ({zone})',
  'chart.axes':
    'Values in {unit}, time in {zone}; point at the chart, or focus it and use the arrow keys, for exact values.',
  'chart.value': '{label}: {value}',
  'chart.bucketValue': '{label}: mean {mean} (min {min}, max {max})',
  'chart.silent': '{label}: no samples, the agent was silent',
  'chart.figures': '{label}: latest {latest}, mean {mean}, highest {max}',
  'chart.gaps':
    '{n, plural, one {One gap where the agent was silent} other {# gaps where the agent was silent}}: {list}.',
  'chart.gapRange': '{from} to {to}',
  'chart.gapTitle': 'No samples, the agent was silent: {span}',

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
  'dashboard.chartSpan':
    'Charts: the last hour, {from} to {to} ({zone}). Point at one, or focus it and use the arrow keys, for exact values.',
  'dashboard.loadingAudit': 'Loading the audit trail',
  'dashboard.noAudit': 'No audit events yet',
  'dashboard.auditBy': 'by {actor}',
  'dashboard.auditByOn': 'by {actor} on {target}',
  'dashboard.actorType':
    '{type, select, system {the hub} agent {an agent} api_key {an API key} other {a user}}',
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
  'assets.density': 'Density',
  'assets.densityOption': '{density, select, compact {Compact} other {Comfortable}}',
  'assets.columns': 'Columns',
  'assets.shownColumns': 'Shown columns',
  'assets.resetWidths': 'Reset widths',
  'assets.resizeColumn': 'Resize the {column} column',
  'assets.savedFilters': 'Saved filters',
  'assets.noSavedFilters': 'None yet: set filters, then save them',
  'assets.saveFilter': 'Save filter…',
  'assets.manageFilters': 'Manage',
  'assets.savedFilterName': 'Name',
  'assets.saveFilterTitle': 'Save the current filters',
  'assets.saveFilterConfirm': 'Save filter',
  'assets.renameFilter': 'Rename',
  'assets.renameFilterNamed': 'Rename {name}',
  'assets.deleteFilterTitle': 'Delete the saved filter {name}?',
  'assets.deleteFilterConfirm': 'Delete filter',
  'assets.deleteFilterText': 'Only the saved filter goes; no asset changes.',

  'assetPage.loading': 'Loading the asset',
  'assetPage.runCommand': 'Run a command',
  'assetPage.runsHub': 'runs the hub',
  'assetPage.inMaintenance': 'this asset is in a maintenance window',
  'assetPage.sections': 'Asset sections',
  'assetPage.loadingSection': 'Loading the section',
  'assetPage.noSuchSection': 'This asset has no such section.',
  'assetTab.overview': 'Overview',
  'assetTab.metrics': 'Metrics',
  'assetTab.processes': 'Processes',
  'assetTab.services': 'Services',
  'assetTab.checks': 'Checks',
  'assetTab.containers': 'Containers',
  'assetTab.network': 'Network',
  'assetTab.disks': 'Disks',
  'assetTab.terminal': 'Terminal',
  'assetTab.packages': 'Packages',
  'assetTab.updates': 'Updates',
  'assetTab.cron': 'Cron',
  'assetTab.users': 'Users',
  'assetTab.logs': 'Logs',
  'assetTab.files': 'Files',
  'assetTab.desktop': 'Desktop',
  'overview.agent': 'Agent',
  'overview.agentState': '{connected, select, yes {connected} other {disconnected}}',
  'overview.agentVersion': '{connected, select, yes {connected} other {disconnected}}, version {version}',
  'overview.agentNone': 'none (manual device)',
  'overview.lastSeen': 'Last seen',
  'overview.connectedSince': 'Connected since',
  'overview.platform': 'Platform',
  'overview.hostname': 'Hostname',
  'overview.ipAddresses': 'IP addresses',
  'overview.macAddress': 'MAC address',
  'overview.tags': 'Tags',
  'overview.source': 'Source',
  'overview.sourceValue': '{source, select, manual {manual} agent {agent} other {connector}}',
  'overview.added': 'Added',
  'overview.hubHost':
    'This machine runs the hub: commands, files, processes and logs here need the admin role.',
  'power.title': 'Power',
  'power.wake': 'Wake (Wake-on-LAN)',
  'power.sending': 'Sending…',
  'power.rebootButton': 'Reboot…',
  'power.shutdownButton': 'Shut down…',
  'power.confirmTitle': '{action, select, reboot {Reboot {name}?} other {Shut down {name}?}}',
  'power.confirm': '{action, select, reboot {Reboot now} other {Shut down now}}',
  'power.consequence':
    '{action, select, reboot {The machine restarts now: everything running on it stops, and its agent is offline until it is back.} other {The machine powers off now. Only Wake-on-LAN (with its MAC address set) or a person at the machine starts it again.}}',
  'power.accepted': '{action, select, reboot {Reboot} other {Shut down}}: the agent accepted it.',
  'power.refused':
    '{action, select, reboot {Reboot} other {Shut down}}: the agent refused it (power actions are off on this agent).',
  'power.anotherAsset': 'another asset',
  'power.wakeByAgent': 'Magic packet for {mac} sent by the agent of {relay} to {target}.',
  'power.wakeByHub': 'Magic packet for {mac} sent by the hub to {target}.',

  'blast.title': 'Blast radius',
  'blast.loading': 'Loading what depends on this',
  'blast.none': 'Nothing depends on this.',
  'blast.assets': '{assets, plural, one {# asset} other {# assets}}',
  'blast.assetsAndContainers':
    '{assets, plural, one {# asset} other {# assets}} and {containers, plural, one {# container} other {# containers}}',
  'blast.summary':
    '{what} {total, plural, one {depends} other {depend}} on this{partial, select, yes { ({direct} directly)} other {}}{limited, select, yes {; more lie deeper than {depth} links} other {}}.',
  'blast.directly': '({kind}, directly)',
  'blast.via': '({kind}, via {path})',
  'blast.truncated': 'The first {shown} of {total} are listed.',
  'blast.graph': 'Dependency graph',

  'changePassword.title': 'Choose your password',
  'changePassword.intro':
    'Signed in as {username} with a generated password. Choose your own to continue{owner, select, yes {; the hub then deletes {file} from its data directory} other {}}.',
  'changePassword.form': 'Choose a new password',
  'changePassword.current': 'Current (generated) password',
  'changePassword.new': 'New password ({min} characters or more)',
  'changePassword.again': 'New password again',
  'changePassword.differ': 'The two passwords differ.',
  'changePassword.submit': 'Set password',

  'common.save': 'Save',
  'assetForm.addTitle': 'Add a device',
  'assetForm.name': 'Name',
  'assetForm.ipAddresses': 'IP addresses (comma separated)',
  'assetForm.macAddress': 'MAC address (for Wake-on-LAN)',
  'assetForm.tags': 'Tags (comma separated)',
  'assetForm.description': 'Description',

  'maintenance.title': 'In maintenance:',
  'maintenance.notice': '{title} {label}{count, plural, =1 {} other { (# assets)}} until {until}: {link}.',
  'maintenance.suppressed': 'alerts are suppressed',

  'rows.filterLabel': 'Filter: {label}',
  'rows.filterPlaceholder': 'Filter',
  'rows.shown': '{shown} of {total}',
  'rows.noMatch': 'Nothing matches the filter',

  'assetPicker.placeholder': 'Type a name, hostname, address or tag',
  'assetPicker.matches': '{label}: matches',
  'assetPicker.noOtherMatch': 'No other asset matches “{query}”',
  'assetPicker.noOthers': 'No other assets',

  'alert.severity':
    '{severity, select, info {info} warning {warning} critical {critical} other {{severity}}}',
  'alert.status':
    '{status, select, active {active} firing {firing} acknowledged {acknowledged} silenced {silenced} suppressed {suppressed} resolved {resolved} other {{status}}}',

  'alerts.title': 'Alerts',
  'alerts.rules': 'Rules',
  'alerts.incidents': 'Incidents',
  'alerts.maintenance': 'alerts raised on assets in a maintenance window are shown as suppressed',
  'alerts.filters': 'Filter alerts',
  'alerts.status': 'Status',
  'alerts.anyStatus': 'Any status',
  'alerts.severity': 'Severity',
  'alerts.anySeverity': 'Any severity',
  'alerts.loading': 'Loading alerts',
  'alerts.none': 'No alerts',
  'alerts.noneText': 'Nothing matches these filters. Alerts come from the rules.',
  'alerts.column':
    '{column, select, severity {Severity} rule {Rule} asset {Asset} summary {Summary} status {Status} other {Fired}}',
  'alerts.until': 'until {time}',
  'alerts.acknowledge': 'Acknowledge',
  'alerts.silence': 'Silence…',

  'silence.title': 'Silence {name}',
  'silence.submit': 'Silence',
  'silence.pending': 'Silencing…',
  'silence.for': 'Silence for',
  'silence.duration':
    '{unit, select, minutes {{n, plural, one {# minute} other {# minutes}}} hours {{n, plural, one {# hour} other {# hours}}} days {{n, plural, one {# day} other {# days}}} other {{n, plural, one {# week} other {# weeks}}}}',

  'rules.title': 'Alert rules',
  'rules.new': 'New rule',
  'rules.alerts': 'Alerts',
  'rules.loading': 'Loading alert rules',
  'rules.none': 'No alert rules yet',
  'rules.noneText': 'A rule raises an alert when an asset is offline, or its CPU, memory or disk stays high.',
  'rules.column':
    '{column, select, name {Name} condition {Condition} severity {Severity} assets {Assets} other {Enabled}}',
  'rules.condition':
    '{kind, select, offline {offline} service {service {service} not active} check {check failing {failures} times in a row} cpu {cpu above {threshold}%} memory {memory above {threshold}%} other {disk above {threshold}%}}{minutes, plural, =0 {} other { for # min}}',
  'rules.assets': '{n, plural, =0 {every asset} other {#}}',
  'rules.enabled': '{enabled, select, yes {yes} other {no}}',
  'rules.deleteConfirm': 'Delete rule',
  'rules.deleteText': 'Its open alerts are resolved. This cannot be undone.',

  'ruleForm.newTitle': 'New alert rule',
  'ruleForm.create': 'Create rule',
  'ruleForm.name': 'Name',
  'ruleForm.condition': 'Condition',
  'ruleForm.kind':
    '{kind, select, offline {Asset offline} cpu {CPU above a threshold} memory {Memory above a threshold} disk {Disk above a threshold} service {Service not active} other {Service check failing}}',
  'ruleForm.service': 'Service name',
  'ruleForm.servicePlaceholder': 'nginx.service',
  'ruleForm.threshold': 'Threshold (%)',
  'ruleForm.failures': 'Failed runs in a row',
  'ruleForm.duration': 'For at least (minutes)',
  'ruleForm.severity': 'Severity',
  'ruleForm.assets': 'Assets',
  'ruleForm.everyAsset': '(every asset)',
  'ruleForm.watched': 'Watched assets',
  'ruleForm.watch': 'Watch an asset',

  'targets.legend': 'Targets',
  'targets.assets': 'Assets',
  'targets.group': 'A group',
  'targets.add': 'Add an asset',
  'targets.chosen': 'Chosen assets',
  'targets.none': 'No asset chosen yet.',
  'targets.groupLabel': 'Group',
  'targets.chooseGroup': 'Choose a group',
  'targets.groupOption': '{name} ({n, plural, one {# asset} other {# assets}})',
};

/** The keys of the entry catalogue: what the sign-in page, the shell and the shared components say. */
type EntryKey = keyof typeof en;
/** Every language's entry catalogue (a chunk of its own but English's): exactly the English entry keys. */
export type EntryCatalogue = Readonly<Record<EntryKey, string>>;
/** Every key of the console: the entry's and the signed-in console's (./console/en.ts). */
export type MessageKey = EntryKey | ConsoleKey;
/** A language's whole catalogue: exactly the English keys. */
export type Catalogue = Readonly<Record<MessageKey, string>>;
