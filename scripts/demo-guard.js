/**
 * `npm run demo`'s guard: `node scripts/demo-guard.js <folder> <hub launcher>` runs the demo's hub and, once the
 * hub has exited, removes the demo's temporary folder (its data and sealed CA key), then exits with the hub's
 * code. It stops the hub (SIGTERM, SIGKILL after 10 s) when its stdin ends: the demo closes it to stop, and
 * the system closes it when the demo dies in any way, a SIGKILL included (tsx kills a script that is slow to
 * answer a signal), so nothing the demo started outlives it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import process from 'node:process';
import { setTimeout } from 'node:timers';

const [dir, launcher] = process.argv.slice(2);
if (!dir || !launcher) {
  process.stderr.write('usage: node scripts/demo-guard.js <folder> <hub launcher>\n');
  process.exit(2);
}

const hub = spawn(process.execPath, [launcher], { stdio: ['ignore', 'inherit', 'inherit'] });

hub.once('exit', (code, signal) => {
  try {
    // Retries cover a file the hub's last moments put back.
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  } catch (error) {
    process.stderr.write(`svc hub demo: could not remove ${dir}: ${String(error)}\n`);
  }
  process.exit(code ?? (signal === 'SIGKILL' ? 137 : 1));
});

hub.once('error', (error) => {
  process.stderr.write(`svc hub demo: could not start the hub: ${error.message}\n`);
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(1);
});

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  if (hub.exitCode !== null || hub.signalCode !== null) return;
  hub.kill('SIGTERM');
  setTimeout(() => hub.kill('SIGKILL'), 10_000).unref();
}

process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
// Ctrl-C reaches the whole process group, this guard included: stop the hub, and leave only once it is gone.
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
