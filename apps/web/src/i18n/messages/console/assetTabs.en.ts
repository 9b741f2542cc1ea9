/**
 * The asset page's tabs but the overview and the metrics (pages/asset/tabs/*, AgentAnswer): files,
 * processes, services, containers, logs, disks, network, packages, users, cron and terminal.
 */
export const assetTabs = {
  // AgentAnswer: what every tab asks the asset's agent; `part` names what it asks for.
  'assetTabs.asking':
    '{part, select, processes {Asking the agent for the processes…} services {Asking the agent for the services…} logs {Asking the agent for the logs…} folder {Asking the agent for the folder…} disks {Asking the agent for the disks…} network {Asking the agent for the network interfaces…} packages {Asking the agent for the packages…} users {Asking the agent for the users…} cron {Asking the agent for the cron jobs…} containers {Asking the agent for the containers…} stacks {Asking the agent for the stacks…} images {Asking the agent for the images…} volumes {Asking the agent for the volumes…} other {Asking the agent…}}',
  'assetTabs.loading':
    '{part, select, processes {Loading the processes} services {Loading the services} logs {Loading the logs} folder {Loading the folder} disks {Loading the disks} network {Loading the network interfaces} packages {Loading the packages} users {Loading the users} cron {Loading the cron jobs} containers {Loading the containers} stacks {Loading the stacks} images {Loading the images} volumes {Loading the volumes} other {Loading}}',
  'assetTabs.asOf': 'As of {time}',
  'assetTabs.refresh': 'Refresh',

  // lifecycle-actions: start, stop or restart a container or a service.
  'assetTabs.action': '{action, select, start {Start} stop {Stop} other {Restart}}',
  'assetTabs.actionNamed': '{action, select, start {Start {name}} stop {Stop {name}} other {Restart {name}}}',
  'assetTabs.actionTitle':
    '{action, select, start {Start {name} on {asset}?} stop {Stop {name} on {asset}?} other {Restart {name} on {asset}?}}',
  'assetTabs.actionConfirm':
    '{kind, select, container {{action, select, start {Start container} stop {Stop container} other {Restart container}}} other {{action, select, start {Start service} stop {Stop service} other {Restart service}}}}',
  'assetTabs.actionDone':
    '{name}: {action, select, start {start} stop {stop} other {restart}} done, now {state}',
  'assetTabs.actionUnchanged': '{name}: already {state}, nothing to do',

  // Services
  'assetTabs.services': 'Services',
  'assetTabs.service': 'Service',
  'assetTabs.state': 'State',
  'assetTabs.atBoot': 'At boot',
  'assetTabs.enabled': '{enabled, select, yes {enabled} other {disabled}}',
  'assetTabs.description': 'Description',
  'assetTabs.noServices': 'No services',
  'assetTabs.noServiceManager': 'This host has no service manager (systemd)',
  'assetTabs.serviceConsequence':
    '{action, select, start {The service is started now; whether it starts at boot does not change.} stop {The service stops now, and whatever it serves stops answering until it is started again.} other {The service stops and starts again; what it serves is briefly unavailable.}}',

  // Processes
  'assetTabs.processes': 'Processes',
  'assetTabs.pid': 'PID',
  'assetTabs.user': 'User',
  'assetTabs.name': 'Name',
  'assetTabs.cpu': 'CPU',
  'assetTabs.memory': 'Memory',
  'assetTabs.started': 'Started',
  'assetTabs.command': 'Command',
  'assetTabs.noProcesses': 'No processes',
  'assetTabs.kill': 'Kill',
  'assetTabs.killNamed': 'Kill {name} ({pid})',
  'assetTabs.killTitle': 'Send a signal to {name} ({pid})?',
  'assetTabs.sendSignal': 'Send {signal}',
  'assetTabs.signal': 'Signal',
  'assetTabs.signalHint': 'SIGTERM asks the process to end; SIGKILL ends it at once.',

  // Files
  'assetTabs.folder': 'Folder',
  'assetTabs.folderPath': 'Folder path',
  'assetTabs.go': 'Go',
  'assetTabs.up': 'Up',
  'assetTabs.newFolder': 'New folder',
  'assetTabs.uploadFiles': 'Upload files',
  'assetTabs.uploading': 'Uploading…',
  'assetTabs.replaceFiles': 'Replace existing files',
  'assetTabs.uploaded': 'Uploaded {files}',
  'assetTabs.truncatedFolder': 'This folder holds more entries than the agent lists at once.',
  'assetTabs.filesIn': 'Files in {path}',
  'assetTabs.emptyFolder': 'This folder is empty',
  'assetTabs.link': '(link)',
  'assetTabs.size': 'Size',
  'assetTabs.modified': 'Modified',
  'assetTabs.mode': 'Mode',
  'assetTabs.download': 'Download',
  'assetTabs.downloadNamed': 'Download {name}',
  'assetTabs.rename': 'Rename',
  'assetTabs.renameNamed': 'Rename {name}',
  'assetTabs.copy': 'Copy',
  'assetTabs.copyNamed': 'Copy {name}',
  'assetTabs.nameIn': 'Name (in {dir})',
  'assetTabs.createFolder': 'Create folder',
  'assetTabs.created': 'Created {path}',
  'assetTabs.moveTitle': '{kind, select, rename {Rename or move {name}} other {Copy {name}}}',
  'assetTabs.moveTo': 'To (full path)',
  'assetTabs.moved': '{kind, select, rename {Moved {from} to {to}} other {Copied {from} to {to}}}',
  'assetTabs.replaceThere': 'Replace what is there already',
  'assetTabs.deleteTitle': 'Delete {name}?',
  'assetTabs.deleteConfirm': '{kind, select, folder {Delete folder} other {Delete file}}',
  'assetTabs.deleteText': '{path} is deleted from the machine; there is no undo.',
  'assetTabs.deleteInside': 'Delete everything inside it too',
  'assetTabs.deleted': 'Deleted {path}',

  // Logs (the asset's) and a container's logs
  'assetTabs.logQuery': 'Log query',
  'assetTabs.source': 'Source',
  'assetTabs.sourceFile': 'file under {dir}',
  'assetTabs.unit': 'Unit',
  'assetTabs.unitPlaceholder': 'all units, or e.g. {example}',
  'assetTabs.file': 'File',
  'assetTabs.containing': 'Containing',
  'assetTabs.textToFind': 'text to find',
  'assetTabs.priorityAtMost': 'Priority at most',
  'assetTabs.anyPriority': 'any',
  'assetTabs.since': 'Since',
  'assetTabs.until': 'Until',
  'assetTabs.atMost': 'At most',
  'assetTabs.queryLogs': 'Query logs',
  'assetTabs.moreEntries':
    '{n, plural, one {More entries match: only the first is shown.} other {More entries match: only the first # are shown.}}',
  'assetTabs.logEntries': 'Log entries',
  'assetTabs.time': 'Time',
  'assetTabs.priority': 'Priority',
  'assetTabs.message': 'Message',
  'assetTabs.noLogMatch': 'No log entries match',

  // Containers
  'assetTabs.containerViews': 'Container views',
  'assetTabs.containers': 'Containers',
  'assetTabs.stacks': 'Stacks',
  'assetTabs.images': 'Images',
  'assetTabs.volumes': 'Volumes',
  'assetTabs.image': 'Image',
  'assetTabs.ports': 'Ports',
  'assetTabs.stack': 'Stack',
  'assetTabs.createdAt': 'Created',
  'assetTabs.tags': 'Tags',
  'assetTabs.untagged': 'untagged',
  'assetTabs.id': 'Id',
  'assetTabs.driver': 'Driver',
  'assetTabs.mountPoint': 'Mount point',
  'assetTabs.firstContainers':
    '{total, plural, one {The first {shown} of # container are shown.} other {The first {shown} of # containers are shown.}}',
  'assetTabs.noContainers': 'No containers on this host',
  'assetTabs.noImages': 'No images on this host',
  'assetTabs.noVolumes': 'No volumes on this host',
  'assetTabs.logs': 'Logs',
  'assetTabs.logsOf': 'Logs of {name}',
  'assetTabs.closeLogs': 'Close logs',
  'assetTabs.containerLogQuery': 'Container log query',
  'assetTabs.lastLines': 'Last lines',
  'assetTabs.engineTimestamps': 'Engine timestamps',
  'assetTabs.showLogs': 'Show logs',
  'assetTabs.ttyStream': 'This container has a terminal (TTY): its output is one stream.',
  'assetTabs.twoStreams': 'Standard output and standard error, in the order written.',
  'assetTabs.logTruncated': 'Only the newest lines within the size limit are shown.',
  'assetTabs.noLogLines': 'No log lines.',
  'assetTabs.logLines': 'Log lines',
  'assetTabs.containerConsequence':
    '{action, select, start {The container is started now.} stop {The container is asked to stop and killed after 10 seconds; what it serves stops answering.} other {The container stops and starts again; what it serves is briefly unavailable.}}',
  'assetTabs.noStacks': 'No compose stacks: no container here carries a {label} label.',
  'assetTabs.running': '{running}/{total} running',
  'assetTabs.stackServices': 'Services: {services}',

  // Disks
  'assetTabs.fileSystems': 'File systems',
  'assetTabs.noFileSystems': 'No file systems reported',
  'assetTabs.mount': 'Mount',
  'assetTabs.device': 'Device',
  'assetTabs.type': 'Type',
  'assetTabs.used': 'Used',
  'assetTabs.available': 'Available',
  'assetTabs.usage': 'Usage',
  'assetTabs.mountUsed': '{mount} used',

  // Network
  'assetTabs.networkInterfaces': 'Network interfaces',
  'assetTabs.noInterfaces': 'No network interfaces reported',
  'assetTabs.interface': 'Interface',
  'assetTabs.macAddress': 'MAC address',
  'assetTabs.addresses': 'Addresses',
  'assetTabs.loopback': 'loopback',

  // Packages
  'assetTabs.packages': 'Packages',
  'assetTabs.package': 'Package',
  'assetTabs.version': 'Version',
  'assetTabs.architecture': 'Architecture',
  'assetTabs.packageManager': 'Package manager: {manager}',
  'assetTabs.noPackageManager': 'No supported package manager on this host',
  'assetTabs.noPackages': 'No packages',

  // Users
  'assetTabs.systemUsers': 'System users',
  'assetTabs.uid': 'UID',
  'assetTabs.gid': 'GID',
  'assetTabs.home': 'Home',
  'assetTabs.shell': 'Shell',
  'assetTabs.fullName': 'Full name',
  'assetTabs.noUsers': 'No users',

  // Cron
  'assetTabs.cronJobs': 'Cron jobs',
  'assetTabs.schedule': 'Schedule',
  'assetTabs.noCronJobs': 'No cron jobs',

  // Terminal
  'assetTabs.terminalText':
    'A shell on {name}, as the agent’s user, through the hub. It stays open for a while if you leave.',
  'assetTabs.openTerminal': 'Open a terminal',
};
