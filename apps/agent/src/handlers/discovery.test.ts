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

  it('finds every listening port of a machine with tens of thousands of connections', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-procnet-'));
    try {
      // 30,000 established connections (~4.5 MB, as a busy server's file is) with a listener every 997 lines,
      // so some of them straddle the boundaries of the chunks the scan reads.
      const lines = [tcp.split('\n')[0] ?? ''];
      const listening: number[] = [];
      for (let i = 0; i < 30_000; i++) {
        const port = 1024 + i;
        const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
        const state = i % 997 === 0 ? '0A' : '01';
        if (state === '0A') listening.push(port);
        lines.push(
          `${String(i).padStart(5)}: 0100007F:${hexPort} 0100007F:D431 ${state} 00000000:00000000 00:00000000 00000000     0        0 ${String(9000 + i)} 1 0000000000000000 20 4 31 10 -1`,
        );
      }
      fs.writeFileSync(path.join(dir, 'tcp'), `${lines.join('\n')}\n`);
      const scan = createDiscoveryHandlers({ procNet: dir })['discovery.scan'];
      const result = await scan({ container: false, port_scan: true });
      expect(result.listening?.map((p) => p.port)).toEqual(listening);
      expect(result.listening?.every((p) => p.address === '127.0.0.1' && p.protocol === 'tcp')).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
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
