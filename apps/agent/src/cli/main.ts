/**
 * Entry of the `svc-agent` executable: bundled into dist/svc-agent.mjs by scripts/build.js, or by tsx. The
 * service's plain `run` starts the daemon directly; every other command line goes through program.ts.
 */
import { plainRunOptions, runAgentDaemon } from './daemon.js';

const argv = process.argv.slice(2);
const io = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  platform: process.platform,
};

async function runPlain(options: NonNullable<ReturnType<typeof plainRunOptions>>): Promise<number> {
  try {
    await runAgentDaemon(options, io);
    return 0;
  } catch (error) {
    io.stderr.write(`svc-agent: ${(error as Error).message}\n`);
    return 1;
  }
}

const plain = plainRunOptions(argv);
process.exitCode = plain ? await runPlain(plain) : await (await import('./program.js')).runCli(argv, io);
