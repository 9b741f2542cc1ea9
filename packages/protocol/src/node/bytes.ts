/**
 * Byte helpers of the channel's flow-controlled streams (decision 0028) shared by the hub and the agent.
 * Node-only (Buffer): reached through `@svc/protocol/node`, never the browser's `@svc/protocol`.
 */

/** Takes `size` bytes (no more than are queued) off the front of a queue of chunks. */
export function takeBytes(queue: Buffer[], size: number): Buffer {
  const parts: Buffer[] = [];
  let need = size;
  while (need > 0) {
    const head = queue[0];
    if (!head) break;
    if (head.length <= need) {
      parts.push(head);
      queue.shift();
      need -= head.length;
    } else {
      parts.push(head.subarray(0, need));
      queue[0] = head.subarray(need);
      need = 0;
    }
  }
  return Buffer.concat(parts);
}
