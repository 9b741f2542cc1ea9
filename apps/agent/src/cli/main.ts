/** Entry of the `svc-agent` executable: bundled into dist/svc-agent.mjs by scripts/build.js, or by tsx. */
import { runCli } from './program.js';

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  platform: process.platform,
});
process.exitCode = code;
