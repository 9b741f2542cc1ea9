/** Entry of the `svc` executable: bundled into dist/svc.mjs by scripts/build.js. */
import { runCli } from './program.js';

const interrupt = new AbortController();
process.once('SIGINT', () => {
  interrupt.abort();
});

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  stdinIsTty: process.stdin.isTTY,
  stderrIsTty: process.stderr.isTTY,
  interrupt: interrupt.signal,
});
process.exitCode = code;
