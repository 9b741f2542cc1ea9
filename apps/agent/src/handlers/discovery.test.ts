import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDiscoveryHandlers, parseProcNetTcp } from './discovery.js';

// Captured shapes: sshd on 0.0.0.0:22, a loopback-only 127.0.0.1:5432, an established connection (01),
// and in tcp6 [::]:80 and [::1]:631.
const tcp = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 16243 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1538 00000000:0000 0A 00000000:00000000 00:00000000 00000000   110        0 20841 1 0000000000000000 100 0 0 10 0
   2: 0200A8C0:0016 0A00A8C0:D431 01 00000000:00000000 02:0009B6C2 00000000     0        0 88121 4 0000000000000000 20 4 31 10 -1
`;
const tcp6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:0050 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 19866 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000001000000:0277 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 18001 1 0000000000000000 100 0 0 10 0
`;

describe('listening ports from /proc/net', () => {
  it('reads LISTEN sockets only, addresses in the kernel byte order', () => {
    expect(parseProcNetTcp(tcp, 'tcp')).toEqual([
      { protocol: 'tcp', address: '0.0.0.0', port: 22 },
      { protocol: 'tcp', address: '127.0.0.1', port: 5432 },
    ]);
    expect(parseProcNetTcp(tcp6, 'tcp6')).toEqual([
      { protocol: 'tcp6', address: '::', port: 80 },
      { protocol: 'tcp6', address: '::1', port: 631 },
    ]);
  });

  it('skips lines it cannot read', () => {
    expect(parseProcNetTcp('header\n garbage line\n 0: ZZ:0016 0:0 0A', 'tcp')).toEqual([]);
  });

  it('follows the fleet default, and this node when it overrides the port scan', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-procnet-'));
    try {
      fs.writeFileSync(path.join(dir, 'tcp'), tcp);
      fs.writeFileSync(path.join(dir, 'tcp6'), tcp6);
      const fleet = createDiscoveryHandlers({ procNet: dir })['discovery.scan'];
      const found = await fleet({ container: true, port_scan: true });
      expect(found.applied).toEqual({ container: true, port_scan: true });
      expect(found.containers).toBeNull(); // no engine configured
      expect(found.listening?.map((l) => l.port)).toEqual([22, 80, 631, 5432]);

      const off = createDiscoveryHandlers({ procNet: dir, portScanOverride: false })['discovery.scan'];
      expect(await off({ container: false, port_scan: true })).toEqual({
        applied: { container: false, port_scan: false },
        containers: null,
        listening: null,
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
