/**
 * The hub ↔ agent channel: versioned JSON frames `{v, type, id, payload}` over one WebSocket per agent.
 * One catalog per direction; both ends validate every frame against it. Everything an agent sends is
 * untrusted input to the hub.
 *
 * Hub → agent: requests (`exec.run`, `files.list`, …). The agent answers each with a `result` frame carrying
 * the request's id; `hub.moving` (no answer) asks it to reconnect elsewhere. Agent → hub: `hello` (once,
 * answered by `welcome`), `heartbeat`, `metrics`, `result`.
 */
import { Type, type Static, type TProperties, type TSchema } from 'typebox';
import { checkKinds, checkLimits } from './check-limits.js';
import { DiscoveryDefaults } from './settings.js';

export const agentProtocolVersion = 1;

export const agentLimits = {
  /** Largest frame either side accepts (a file chunk in base64 plus envelope). */
  frameBytes: 16 * 1024 * 1024,
  /** Largest file read or written through the channel. */
  fileBytes: 8 * 1024 * 1024,
  /** Per exec stream (stdout, stderr). */
  execStreamBytes: 1024 * 1024,
  pathLength: 4096,
  listEntries: 10_000,
  processes: 5_000,
  logEntries: 5_000,
  metricsPerFrame: 500,
  /** Frames an agent may send per second before the hub closes it. */
  framesPerSecond: 200,
} as const;

const Path = Type.String({ minLength: 1, maxLength: agentLimits.pathLength });
const Iso = Type.String({ maxLength: 40 });
const Count = Type.Integer({ minimum: 0 });
const Text = (max = 4096) => Type.String({ maxLength: max });
const Maybe = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
/**
 * Every object of the channel refuses properties it does not name: padding in an unknown property would
 * otherwise pass validation and cost the other side its parsing and memory. New properties come with a new
 * protocol version.
 */
const Obj = <T extends TProperties>(properties: T) =>
  Type.Object(properties, { additionalProperties: false });

/** Error codes an agent may return; the hub maps them to its own catalog. */
export const agentErrorCodes = [
  'not_found',
  'permission_denied',
  /** The path holds the hub's own secrets (a protected path of the local agent): never usable. */
  'forbidden_path',
  'invalid_path',
  'invalid_argument',
  'too_large',
  'exists',
  'is_directory',
  'not_directory',
  'unsupported',
  'timeout',
  'failed',
] as const;
export type AgentErrorCode = (typeof agentErrorCodes)[number];

export const AgentError = Obj({
  code: Type.Enum<[...typeof agentErrorCodes]>([...agentErrorCodes]),
  message: Text(2000),
});
export type AgentError = Static<typeof AgentError>;

// ---- requests, hub → agent ---------------------------------------------------------------------------
const ServiceName = Type.String({ minLength: 1, maxLength: 256, pattern: '^[A-Za-z0-9@._:-]+$' });
export const serviceActions = ['start', 'stop', 'restart'] as const;
export const signals = [
  'SIGTERM',
  'SIGKILL',
  'SIGINT',
  'SIGHUP',
  'SIGQUIT',
  'SIGUSR1',
  'SIGUSR2',
  'SIGSTOP',
  'SIGCONT',
] as const;

export const FileEntry = Obj({
  name: Text(1024),
  type: Type.Enum<['file', 'directory', 'symlink', 'other']>(['file', 'directory', 'symlink', 'other']),
  size: Count,
  mode: Text(16),
  modified_at: Maybe(Iso),
});
export type FileEntry = Static<typeof FileEntry>;

/**
 * Processes the command left running when it ended (background jobs, `setsid` children), present only when
 * there were any: the agent ends them (an exec is a one-shot); `killed` is false if some could not be ended.
 */
export const LeftRunning = Obj({ count: Count, killed: Type.Boolean() });
export type LeftRunning = Static<typeof LeftRunning>;

export const ExecOutcome = Obj({
  exit_code: Maybe(Type.Integer()),
  signal: Maybe(Text(32)),
  stdout: Type.String({ maxLength: agentLimits.execStreamBytes * 2 }),
  stderr: Type.String({ maxLength: agentLimits.execStreamBytes * 2 }),
  truncated: Type.Boolean(),
  timed_out: Type.Boolean(),
  duration_ms: Count,
  left_running: Type.Optional(LeftRunning),
});
export type ExecOutcome = Static<typeof ExecOutcome>;

export const ProcessInfo = Obj({
  pid: Count,
  ppid: Count,
  user: Text(256),
  name: Text(256),
  command: Text(4096),
  state: Text(32),
  cpu_percent: Type.Number({ minimum: 0 }),
  memory_bytes: Count,
  started_at: Maybe(Iso),
});
export type ProcessInfo = Static<typeof ProcessInfo>;

export const ServiceInfo = Obj({
  name: Text(256),
  description: Text(1024),
  load_state: Text(32),
  active_state: Text(32),
  sub_state: Text(32),
  enabled: Maybe(Type.Boolean()),
});
export type ServiceInfo = Static<typeof ServiceInfo>;

export const NetworkInterface = Obj({
  name: Text(256),
  mac: Maybe(Text(32)),
  internal: Type.Boolean(),
  addresses: Type.Array(
    Obj({
      address: Text(64),
      family: Type.Enum<['IPv4', 'IPv6']>(['IPv4', 'IPv6']),
      cidr: Maybe(Text(64)),
    }),
    { maxItems: 256 },
  ),
});
export type NetworkInterface = Static<typeof NetworkInterface>;

export const Filesystem = Obj({
  mount: Text(1024),
  device: Text(1024),
  fstype: Text(64),
  size_bytes: Count,
  used_bytes: Count,
  available_bytes: Count,
});
export type Filesystem = Static<typeof Filesystem>;

export const PackageInfo = Obj({ name: Text(256), version: Text(256), arch: Maybe(Text(64)) });
export type PackageInfo = Static<typeof PackageInfo>;

export const CronJob = Obj({
  source: Text(1024),
  user: Maybe(Text(256)),
  schedule: Text(256),
  command: Text(4096),
});
export type CronJob = Static<typeof CronJob>;

export const SystemUser = Obj({
  name: Text(256),
  uid: Count,
  gid: Count,
  home: Text(1024),
  shell: Text(1024),
  gecos: Text(1024),
});
export type SystemUser = Static<typeof SystemUser>;

export const LogEntry = Obj({
  ts: Maybe(Iso),
  source: Text(256),
  priority: Maybe(Type.Integer()),
  message: Text(8192),
});
export type LogEntry = Static<typeof LogEntry>;

export const LogQuery = Type.Object(
  {
    source: Type.Optional(Type.Enum<['journal', 'file']>(['journal', 'file'])),
    unit: Type.Optional(ServiceName),
    path: Type.Optional(Path),
    since: Type.Optional(Iso),
    until: Type.Optional(Iso),
    grep: Type.Optional(Type.String({ maxLength: 256 })),
    priority: Type.Optional(Type.Integer({ minimum: 0, maximum: 7 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: agentLimits.logEntries })),
  },
  { additionalProperties: false },
);
export type LogQuery = Static<typeof LogQuery>;

// ---- containers (Docker Engine API through the agent) ---------------------------------------------------
/** Container ids and names as the engine spells them: hex ids or `[A-Za-z0-9][A-Za-z0-9_.-]*`, bounded. */
export const containerRefPattern = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$';
const ContainerRef = Type.String({ minLength: 1, maxLength: 128, pattern: containerRefPattern });
export const containerActions = ['start', 'stop', 'restart'] as const;
export const containerLogStreams = ['stdout', 'stderr', 'tty'] as const;

export const containerLimits = {
  containers: 5_000,
  images: 5_000,
  volumes: 5_000,
  logTailLines: 10_000,
  /** Log bytes one answer carries; what follows is cut and `truncated` set. */
  logBytes: 1024 * 1024,
  portsPerContainer: 256,
} as const;

export const ContainerPort = Obj({
  private_port: Type.Integer({ minimum: 0, maximum: 65535 }),
  public_port: Maybe(Type.Integer({ minimum: 0, maximum: 65535 })),
  ip: Maybe(Text(64)),
  type: Text(16),
});
export type ContainerPort = Static<typeof ContainerPort>;

export const EngineContainer = Obj({
  id: ContainerRef,
  name: Text(256),
  image: Text(1024),
  /** The engine's state word: created, running, paused, restarting, removing, exited, dead. */
  state: Text(32),
  /** The engine's human text (`Up 14 seconds (healthy)`). */
  status: Text(256),
  /** healthy, unhealthy, starting, or null without a health check. */
  health: Maybe(Text(32)),
  created_at: Maybe(Iso),
  ports: Type.Array(ContainerPort, { maxItems: containerLimits.portsPerContainer }),
  compose_project: Maybe(Text(256)),
  compose_service: Maybe(Text(256)),
});
export type EngineContainer = Static<typeof EngineContainer>;

export const EngineImage = Obj({
  id: Text(128),
  tags: Type.Array(Text(512), { maxItems: 256 }),
  size_bytes: Count,
  created_at: Maybe(Iso),
  containers: Maybe(Type.Integer()),
});
export type EngineImage = Static<typeof EngineImage>;

export const EngineVolume = Obj({
  name: Text(256),
  driver: Text(128),
  mountpoint: Text(4096),
  created_at: Maybe(Iso),
  compose_project: Maybe(Text(256)),
});
export type EngineVolume = Static<typeof EngineVolume>;

export const ContainerLogEntry = Obj({
  stream: Type.Enum<[...typeof containerLogStreams]>([...containerLogStreams]),
  text: Type.String({ maxLength: containerLimits.logBytes }),
});
export type ContainerLogEntry = Static<typeof ContainerLogEntry>;

// ---- service discovery (POST /discovery/run asks every online agent) ------------------------------------
export const discoveryLimits = { listeningPorts: 2_000, containers: containerLimits.containers } as const;

export const ListeningPort = Obj({
  protocol: Type.Enum<['tcp', 'tcp6', 'udp', 'udp6']>(['tcp', 'tcp6', 'udp', 'udp6']),
  address: Text(64),
  port: Type.Integer({ minimum: 1, maximum: 65535 }),
});
export type ListeningPort = Static<typeof ListeningPort>;

export const DiscoveredContainer = Obj({
  name: Text(256),
  image: Text(1024),
  state: Text(32),
  ports: Type.Array(ContainerPort, { maxItems: containerLimits.portsPerContainer }),
  compose_project: Maybe(Text(256)),
});
export type DiscoveredContainer = Static<typeof DiscoveredContainer>;

// ---- package updates (the machine's own package manager, decisions 0081 and 0082) -------------------------
export const packageManagers = ['apt', 'dnf', 'zypper', 'pacman', 'apk'] as const;
export type PackageManager = (typeof packageManagers)[number];
/** What an update run installs: every upgrade, only those the manager marks as security, or named packages. */
export const updateSelections = ['all', 'security', 'named'] as const;
export type UpdateSelection = (typeof updateSelections)[number];
/** What the manager's simulation says it would do to one package (`held`: kept back or pinned). */
export const plannedChangeActions = ['install', 'upgrade', 'downgrade', 'remove', 'held'] as const;

export const updatesLimits = {
  /** Available updates one answer lists; what follows is cut and `truncated` set. */
  packages: 20_000,
  /** Names one run may ask for. */
  names: 500,
  /** The manager's output kept per target (stdout and stderr interleaved, the end kept). */
  outputBytes: 256 * 1024,
  /** Longest an apply may run on one machine before the agent stops the manager. */
  applyTimeoutMs: 3 * 3_600_000,
} as const;

/**
 * A package name as the managers spell them (Debian, RPM, Arch, Alpine): never a leading `-`, so a name is
 * never read as an option, and always passed as its own argv element after `--` where the manager takes one.
 */
export const packageNamePattern = '^[A-Za-z0-9_][A-Za-z0-9+._@:~-]{0,255}$';
export const PackageName = Type.String({ minLength: 1, maxLength: 256, pattern: packageNamePattern });

const ManagerName = Type.Enum<[...typeof packageManagers]>([...packageManagers]);

export const AvailableUpdate = Obj({
  name: Text(256),
  /** Installed version; null when the manager's listing does not say. */
  current_version: Maybe(Text(256)),
  new_version: Text(256),
  arch: Maybe(Text(64)),
  /** Where the new version comes from (apt's origin/suite, dnf's repository), when the manager says. */
  source: Maybe(Text(256)),
  /** The manager marks it as a security update (apt: a *-security suite; dnf: an advisory of type security). */
  security: Type.Boolean(),
});
export type AvailableUpdate = Static<typeof AvailableUpdate>;

export const PlannedChange = Obj({
  name: Text(256),
  action: Type.Enum<[...typeof plannedChangeActions]>([...plannedChangeActions]),
  from_version: Maybe(Text(256)),
  to_version: Maybe(Text(256)),
});
export type PlannedChange = Static<typeof PlannedChange>;

const UpdateRequest = {
  selection: Type.Enum<[...typeof updateSelections]>([...updateSelections]),
  /** With selection `named`: the packages to upgrade (at least one); empty otherwise. */
  packages: Type.Array(PackageName, { maxItems: updatesLimits.names }),
  /** Refresh the manager's package lists first (apt-get update, dnf makecache…). */
  refresh: Type.Boolean(),
};

const ManagerOutput = {
  /** The manager's own output, its end kept when longer than `updatesLimits.outputBytes`. */
  output: Type.String({ maxLength: updatesLimits.outputBytes }),
  output_truncated: Type.Boolean(),
};

// ---- service checks run from an agent (decision 0084) ------------------------------------------------------
/** What one probe found; a failed probe is an answer (`ok` false, `error` says why), not an agent error. */
export const CheckProbeOutcome = Obj({
  ok: Type.Boolean(),
  latency_ms: Maybe(Count),
  status_code: Maybe(Type.Integer({ minimum: 0, maximum: 999 })),
  error: Maybe(Text(checkLimits.errorLength)),
  /** https: the certificate's notAfter. */
  cert_expires_at: Maybe(Iso),
});
export type CheckProbeOutcome = Static<typeof CheckProbeOutcome>;

/** Every request the hub can send, with its payload and the `data` of a successful result. */
export const agentRequests = {
  'exec.run': {
    payload: Obj({
      command: Type.String({ minLength: 1, maxLength: 65_536 }),
      timeout_ms: Type.Integer({ minimum: 1, maximum: 3_600_000 }),
      max_output_bytes: Type.Integer({ minimum: 1, maximum: agentLimits.execStreamBytes }),
    }),
    result: ExecOutcome,
  },
  'files.list': {
    payload: Obj({ path: Path }),
    result: Obj({
      path: Path,
      entries: Type.Array(FileEntry, { maxItems: agentLimits.listEntries }),
      truncated: Type.Boolean(),
    }),
  },
  'files.read': {
    payload: Obj({
      path: Path,
      max_bytes: Type.Integer({ minimum: 0, maximum: agentLimits.fileBytes }),
    }),
    result: Obj({
      path: Path,
      size: Count,
      data_base64: Type.String({ maxLength: Math.ceil((agentLimits.fileBytes * 4) / 3) + 8 }),
    }),
  },
  'files.write': {
    payload: Obj({
      path: Path,
      data_base64: Type.String({ maxLength: Math.ceil((agentLimits.fileBytes * 4) / 3) + 8 }),
      overwrite: Type.Boolean(),
    }),
    result: Obj({ path: Path, size: Count }),
  },
  'files.mkdir': {
    payload: Obj({ path: Path, recursive: Type.Boolean() }),
    result: Obj({ path: Path }),
  },
  'files.rename': {
    payload: Obj({ from: Path, to: Path, overwrite: Type.Boolean() }),
    result: Obj({ from: Path, to: Path }),
  },
  'files.copy': {
    payload: Obj({ from: Path, to: Path, overwrite: Type.Boolean() }),
    result: Obj({ from: Path, to: Path }),
  },
  'files.delete': {
    payload: Obj({ path: Path, recursive: Type.Boolean() }),
    result: Obj({ path: Path }),
  },
  'processes.list': {
    payload: Obj({}),
    result: Obj({ processes: Type.Array(ProcessInfo, { maxItems: agentLimits.processes }) }),
  },
  'processes.kill': {
    payload: Obj({
      pid: Type.Integer({ minimum: 1, maximum: 4_194_304 }),
      signal: Type.Enum<[...typeof signals]>([...signals]),
    }),
    result: Obj({ pid: Count, signal: Text(16) }),
  },
  'services.list': {
    payload: Obj({}),
    result: Obj({
      manager: Type.Enum<['systemd', 'none']>(['systemd', 'none']),
      services: Type.Array(ServiceInfo, { maxItems: 10_000 }),
    }),
  },
  'services.action': {
    payload: Obj({
      name: ServiceName,
      action: Type.Enum<[...typeof serviceActions]>([...serviceActions]),
    }),
    result: Obj({ name: Text(256), action: Text(16), active_state: Text(32) }),
  },
  'system.network': {
    payload: Obj({}),
    result: Obj({ interfaces: Type.Array(NetworkInterface, { maxItems: 1024 }) }),
  },
  'system.disks': {
    payload: Obj({}),
    result: Obj({ filesystems: Type.Array(Filesystem, { maxItems: 1024 }) }),
  },
  'system.packages': {
    payload: Obj({}),
    result: Obj({
      manager: Type.Enum<['dpkg', 'rpm', 'apk', 'none']>(['dpkg', 'rpm', 'apk', 'none']),
      packages: Type.Array(PackageInfo, { maxItems: 100_000 }),
    }),
  },
  'system.cron': {
    payload: Obj({}),
    result: Obj({ jobs: Type.Array(CronJob, { maxItems: 10_000 }) }),
  },
  'system.users': {
    payload: Obj({}),
    result: Obj({ users: Type.Array(SystemUser, { maxItems: 100_000 }) }),
  },
  'system.logs': {
    payload: LogQuery,
    result: Obj({
      source: Text(64),
      entries: Type.Array(LogEntry, { maxItems: agentLimits.logEntries }),
      truncated: Type.Boolean(),
    }),
  },
  'containers.list': {
    payload: Obj({}),
    result: Obj({
      containers: Type.Array(EngineContainer, { maxItems: containerLimits.containers }),
      truncated: Type.Boolean(),
    }),
  },
  'containers.action': {
    payload: Obj({
      id: ContainerRef,
      action: Type.Enum<[...typeof containerActions]>([...containerActions]),
    }),
    /** `changed` is false when the engine said it was already so (304). */
    result: Obj({ id: ContainerRef, name: Text(256), state: Text(32), changed: Type.Boolean() }),
  },
  'containers.logs': {
    payload: Obj({
      id: ContainerRef,
      tail: Type.Integer({ minimum: 1, maximum: containerLimits.logTailLines }),
      /** Unix seconds: only lines after it. */
      since: Type.Optional(Type.Integer({ minimum: 0, maximum: 32_503_680_000 })),
      timestamps: Type.Boolean(),
    }),
    result: Obj({
      id: ContainerRef,
      /** Whether the container has a TTY: its log is one raw stream, without stdout/stderr framing. */
      tty: Type.Boolean(),
      entries: Type.Array(ContainerLogEntry, { maxItems: containerLimits.logTailLines }),
      truncated: Type.Boolean(),
    }),
  },
  'containers.images': {
    payload: Obj({}),
    result: Obj({
      images: Type.Array(EngineImage, { maxItems: containerLimits.images }),
      truncated: Type.Boolean(),
    }),
  },
  'containers.volumes': {
    payload: Obj({}),
    result: Obj({
      volumes: Type.Array(EngineVolume, { maxItems: containerLimits.volumes }),
      truncated: Type.Boolean(),
    }),
  },
  'discovery.scan': {
    /** The fleet's defaults now; the agent's own services_discovery_* settings override them. */
    payload: Obj({ container: Type.Boolean(), port_scan: Type.Boolean() }),
    result: Obj({
      /** What the agent did, after its own overrides; null containers: not asked, or no engine. */
      applied: Obj({ container: Type.Boolean(), port_scan: Type.Boolean() }),
      containers: Maybe(Type.Array(DiscoveredContainer, { maxItems: discoveryLimits.containers })),
      listening: Maybe(Type.Array(ListeningPort, { maxItems: discoveryLimits.listeningPorts })),
    }),
  },
  'updates.list': {
    payload: Obj({ refresh: Type.Boolean() }),
    result: Obj({
      /** The manager found on the machine; null: none of `packageManagers`. */
      manager: Maybe(ManagerName),
      updates: Type.Array(AvailableUpdate, { maxItems: updatesLimits.packages }),
      truncated: Type.Boolean(),
      /** The machine says it needs a reboot (Debian's /run/reboot-required, dnf needs-restarting -r…). */
      reboot_required: Type.Boolean(),
      /** When packages were last changed by the manager (its log), null when not known. */
      last_patched_at: Maybe(Iso),
    }),
  },
  'updates.simulate': {
    payload: Obj(UpdateRequest),
    /** The manager's own simulation (apt-get -s, dnf --assumeno…): nothing is changed. */
    result: Obj({
      manager: ManagerName,
      changes: Type.Array(PlannedChange, { maxItems: updatesLimits.packages }),
      truncated: Type.Boolean(),
      ...ManagerOutput,
    }),
  },
  'updates.apply': {
    payload: Obj({
      ...UpdateRequest,
      timeout_ms: Type.Integer({ minimum: 1_000, maximum: updatesLimits.applyTimeoutMs }),
      /** Reboot after a successful apply when the machine then says it needs one. */
      reboot_if_required: Type.Boolean(),
    }),
    result: Obj({
      manager: ManagerName,
      /** What the manager did, from its simulation just before and its exit. */
      changes: Type.Array(PlannedChange, { maxItems: updatesLimits.packages }),
      truncated: Type.Boolean(),
      exit_code: Maybe(Type.Integer()),
      timed_out: Type.Boolean(),
      duration_ms: Count,
      reboot_required: Type.Boolean(),
      /** A reboot was asked for (reboot_if_required and the machine needed one) and accepted. */
      rebooting: Type.Boolean(),
      ...ManagerOutput,
    }),
  },
  'check.run': {
    /**
     * One probe, on the agent's own network (no egress guard there). The agent parses `target` as the hub
     * does (http(s) URLs without credentials, `host:port`, a host) and answers invalid_argument otherwise; it
     * stops the probe at `timeout_ms` and reads at most 64 KiB of a body.
     */
    payload: Obj({
      kind: Type.Enum<[...typeof checkKinds]>([...checkKinds]),
      target: Type.String({ minLength: 1, maxLength: checkLimits.targetLength }),
      timeout_ms: Type.Integer({ minimum: 1_000, maximum: checkLimits.maxTimeoutSeconds * 1000 }),
      tls_verify: Type.Boolean(),
      /** `http`: the statuses that count as up; null: any 2xx or 3xx. */
      expected_status: Maybe(
        Type.Array(Type.Integer({ minimum: 100, maximum: 599 }), { maxItems: checkLimits.expectedStatuses }),
      ),
      expected_body: Maybe(Type.String({ minLength: 1, maxLength: checkLimits.expectedBodyLength })),
    }),
    result: CheckProbeOutcome,
  },
  'power.reboot': { payload: Obj({}), result: Obj({ accepted: Type.Boolean() }) },
  'power.shutdown': { payload: Obj({}), result: Obj({ accepted: Type.Boolean() }) },
  'wol.relay': {
    payload: Obj({
      mac: Type.String({ pattern: '^[0-9a-f]{2}(:[0-9a-f]{2}){5}$' }),
      address: Text(64),
      port: Type.Integer({ minimum: 1, maximum: 65535 }),
    }),
    result: Obj({ sent: Type.Boolean() }),
  },
  'credential.rotate': {
    payload: Obj({ credential: Type.String({ minLength: 20, maxLength: 200 }) }),
    result: Obj({ saved: Type.Boolean() }),
  },
} as const satisfies Record<string, { payload: TSchema; result: TSchema }>;

export type AgentRequestType = keyof typeof agentRequests;
export const agentRequestTypes = Object.keys(agentRequests) as AgentRequestType[];
export type AgentRequestPayload<T extends AgentRequestType> = Static<(typeof agentRequests)[T]['payload']>;
export type AgentRequestResult<T extends AgentRequestType> = Static<(typeof agentRequests)[T]['result']>;

// ---- frames agent → hub ------------------------------------------------------------------------------
export const agentCapabilities = [
  'exec',
  'files',
  'processes',
  'services',
  'system',
  'logs',
  'power',
  'wol',
  'metrics',
  /** The container engine answered when the agent said hello (containers.* work there). */
  'containers',
  /** `pty` streams: interactive terminals (Linux, with util-linux script). */
  'terminal',
  /** A package manager of `packageManagers` was found (updates.* work there). */
  'updates',
  /** `check.run`: service checks run from this agent (decision 0084). */
  'checks',
] as const;

/** One address of a network interface with its prefix length, as the agent's OS reports it. */
export const HelloInterface = Obj({
  address: Text(64),
  prefix: Type.Integer({ minimum: 0, maximum: 128 }),
});
export type HelloInterface = Static<typeof HelloInterface>;

export const Hello = Obj({
  agent_version: Text(64),
  protocol: Type.Integer({ minimum: 1, maximum: 1000 }),
  hostname: Text(253),
  platform: Type.Enum<['linux', 'windows', 'macos', 'freebsd', 'other']>([
    'linux',
    'windows',
    'macos',
    'freebsd',
    'other',
  ]),
  os_release: Text(256),
  arch: Text(32),
  ip_addresses: Type.Array(Text(64), { maxItems: 64 }),
  mac_addresses: Type.Array(Text(32), { maxItems: 64 }),
  /** The addresses of `ip_addresses` with their prefixes: what the hub chooses a Wake-on-LAN relay by. */
  interfaces: Type.Optional(Type.Array(HelloInterface, { maxItems: 64 })),
  capabilities: Type.Array(Text(32), { maxItems: 32 }),
  low_power: Type.Boolean(),
});
export type Hello = Static<typeof Hello>;

export const Welcome = Obj({
  asset_id: Type.String(),
  heartbeat_interval_s: Type.Integer({ minimum: 1 }),
  collect_interval_s: Type.Integer({ minimum: 1 }),
  /** The fleet's service-discovery defaults (runtime settings); agents without their own override follow them. */
  discovery: Type.Optional(DiscoveryDefaults),
});
export type Welcome = Static<typeof Welcome>;

export const Heartbeat = Obj({ uptime_s: Count, load1: Maybe(Type.Number({ minimum: 0 })) });
export type Heartbeat = Static<typeof Heartbeat>;

export const MetricSample = Obj({
  ts: Iso,
  cpu_percent: Type.Number({ minimum: 0, maximum: 100_000 }),
  memory_used_bytes: Count,
  memory_total_bytes: Count,
  disk_used_bytes: Count,
  disk_total_bytes: Count,
  load1: Type.Number({ minimum: 0 }),
  net_rx_bytes: Count,
  net_tx_bytes: Count,
});
export type MetricSample = Static<typeof MetricSample>;

export const MetricsFrame = Obj({
  samples: Type.Array(MetricSample, { minItems: 1, maxItems: agentLimits.metricsPerFrame }),
});
export type MetricsFrame = Static<typeof MetricsFrame>;

export const ResultPayload = Type.Union([
  Obj({ ok: Type.Literal(true), data: Type.Unknown() }),
  Obj({ ok: Type.Literal(false), error: AgentError }),
]);
export type ResultPayload = Static<typeof ResultPayload>;

export const agentToHub = {
  hello: Hello,
  heartbeat: Heartbeat,
  metrics: MetricsFrame,
  result: ResultPayload,
} as const satisfies Record<string, TSchema>;
export type AgentToHubType = keyof typeof agentToHub;

/** The longest random delay a `hub.moving` notice may ask of an agent before it reconnects. */
export const hubMovingMaxDelayMs = 2_000;

/**
 * Hub → agent, no answer: this hub process is stopping (decision 0055). The agent closes the channel after a
 * random delay of up to `within_ms` and reconnects at once (through the load balancer, which has taken this
 * process out, or to its next hub address), not after its error backoff. An agent that does not know the
 * notice answers it `unsupported` and reconnects when the process closes the channel.
 */
export const HubMoving = Obj({
  within_ms: Type.Integer({ minimum: 0, maximum: hubMovingMaxDelayMs }),
});
export type HubMoving = Static<typeof HubMoving>;

export const hubToAgentEvents = { welcome: Welcome, 'hub.moving': HubMoving } as const satisfies Record<
  string,
  TSchema
>;

/** The frame envelope both directions share. `id` correlates a request and its result. */
export const Frame = Obj({
  v: Type.Literal(agentProtocolVersion),
  type: Type.String({ minLength: 1, maxLength: 64 }),
  id: Type.String({ minLength: 1, maxLength: 64 }),
  payload: Type.Unknown(),
});
export type Frame = Static<typeof Frame>;

// ---- enrollment (/api/v1/enroll) ---------------------------------------------------------------------
export const EnrollRequest = Type.Object(
  {
    token: Type.String({ minLength: 10, maxLength: 200 }),
    hostname: Type.String({ minLength: 1, maxLength: 253 }),
    platform: Type.Optional(
      Type.Enum<['linux', 'windows', 'macos', 'freebsd', 'other']>([
        'linux',
        'windows',
        'macos',
        'freebsd',
        'other',
      ]),
    ),
    agent_version: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type EnrollRequest = Static<typeof EnrollRequest>;

export const EnrollResponse = Type.Object({
  asset_id: Type.String(),
  credential: Type.String(),
  /** The hub's CA (PEM) when it serves its own; null when it uses a public or external certificate. */
  ca_pem: Maybe(Type.String()),
  ca_fingerprint_sha256: Maybe(Type.String()),
  channel_path: Type.String(),
});
export type EnrollResponse = Static<typeof EnrollResponse>;

/** Agent credential text: `sva_` + 52 lowercase base32 characters (32 random bytes). */
export const agentCredentialPattern = /^sva_[a-z2-7]{52}$/;
/** Enrollment token text: `sve_` + 52 lowercase base32 characters. */
export const enrollmentTokenPattern = /^sve_[a-z2-7]{52}$/;
export const agentChannelPath = '/api/v1/agent/channel';
