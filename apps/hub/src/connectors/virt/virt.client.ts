/**
 * Proxmox VE over its REST API with an API token. Start and stop are asynchronous: the answer is a task UPID,
 * followed through the task status until it stops; only exit status `OK` is success.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { UpstreamContext } from '../base/connector.js';
import { UpstreamError } from '../base/upstream-error.js';
import { parseUpstream, type UpstreamAnswer } from '../base/upstream-http.js';
import {
  PveCephStatus,
  PveClusterStatus,
  PveResources,
  PveTaskStatus,
  PveUpid,
  type PveClusterEntry,
  type PveResource,
} from './virt.upstream.js';

/** pve-http-server puts the message in the reason phrase; parameter errors list fields in `errors`. */
function describePveError(answer: UpstreamAnswer): string {
  if ([595, 596, 599].includes(answer.status)) {
    return `target node unreachable (${String(answer.status)} ${answer.statusText})`;
  }
  let detail = '';
  try {
    const body = JSON.parse(answer.text) as { errors?: unknown };
    if (typeof body.errors === 'object' && body.errors !== null) {
      detail = Object.entries(body.errors as Record<string, unknown>)
        .map(([field, text]) => `${field}: ${String(text).trim()}`)
        .join('; ');
    }
  } catch {
    // The reason phrase is the message; an empty or text body adds nothing.
  }
  const line = `HTTP ${String(answer.status)} ${answer.statusText.trim()}`.trim();
  return detail === '' ? line : `${line} (${detail})`;
}

export interface VirtTaskOptions {
  pollMs: number;
  timeoutMs: number;
}

export type VirtGuestType = 'qemu' | 'lxc';

export function createVirtClient(
  ctx: UpstreamContext,
  task: VirtTaskOptions = { pollMs: 500, timeoutMs: 120_000 },
) {
  const http = ctx.http({
    baseUrl: `${ctx.connector.baseUrl.replace(/\/+$/, '')}/api2/json`,
    headers: { authorization: `PVEAPIToken=${ctx.connector.credentials}` },
    describeError: describePveError,
  });
  const seg = encodeURIComponent;

  async function followTask(node: string, upid: string): Promise<string> {
    const deadline = Date.now() + task.timeoutMs;
    for (;;) {
      const status: PveTaskStatus = parseUpstream(
        PveTaskStatus,
        await http.getJson(`/nodes/${seg(node)}/tasks/${seg(upid)}/status`),
        'task status',
      ).data;
      if (status.status === 'stopped') return status.exitstatus ?? '';
      if (Date.now() > deadline)
        throw new UpstreamError('timeout', `task ${upid} still running after ${String(task.timeoutMs)} ms`);
      await sleep(task.pollMs);
    }
  }

  return {
    async version(): Promise<unknown> {
      return http.getJson('/version');
    },
    async clusterStatus(): Promise<PveClusterEntry[]> {
      return parseUpstream(PveClusterStatus, await http.getJson('/cluster/status'), 'cluster status').data;
    },
    async resources(type?: 'vm' | 'node' | 'storage'): Promise<PveResource[]> {
      return parseUpstream(
        PveResources,
        await http.getJson('/cluster/resources', { type }),
        'cluster resources',
      ).data;
    },
    async ceph() {
      return parseUpstream(PveCephStatus, await http.getJson('/cluster/ceph/status'), 'ceph status').data;
    },
    /** Runs start or stop and follows its task: the UPID and exit status `OK`, or UpstreamError `failed`. */
    async guestAction(
      node: string,
      type: VirtGuestType,
      vmid: number,
      action: 'start' | 'stop',
    ): Promise<{ upid: string; exitstatus: string }> {
      const upid = parseUpstream(
        PveUpid,
        await http.sendJson('POST', `/nodes/${seg(node)}/${type}/${String(vmid)}/status/${action}`),
        action,
      ).data;
      const exitstatus = await followTask(node, upid);
      if (exitstatus !== 'OK') {
        throw new UpstreamError(
          'failed',
          `task ${action} of ${String(vmid)} ended with exit status: ${exitstatus || '(none)'}`,
        );
      }
      return { upid, exitstatus };
    },
  };
}
