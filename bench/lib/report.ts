/**
 * Benchmark results go to docs/BENCHMARKS.md: one section per benchmark, replaced on each run, with the
 * machine, the date, the command, the figures and the same-run baseline beside them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** BENCH_REPORT sends a trial run's figures elsewhere, so the committed file keeps its full-size runs. */
const reportFile = process.env.BENCH_REPORT ?? path.join(repoRoot, 'docs', 'BENCHMARKS.md');

export interface Figure {
  name: string;
  value: string;
  target?: string;
  /** Whether the target was met; undefined when there is no target. */
  met?: boolean;
}

export interface BenchResult {
  benchmark: string;
  command: string;
  summary: string;
  figures: Figure[];
  notes?: string[];
}

function machineLine(): string {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}`;
}

function render(result: BenchResult): string {
  const rows = result.figures
    .map(
      (f) =>
        `| ${f.name} | ${f.value} | ${f.target ?? ''} | ${f.met === undefined ? '' : f.met ? 'met' : '**missed**'} |`,
    )
    .join('\n');
  const notes = (result.notes ?? []).map((n) => `- ${n}`).join('\n');
  return [
    `<!-- bench:${result.benchmark}:start -->`,
    `## ${result.benchmark}`,
    '',
    result.summary,
    '',
    `- machine: ${machineLine()}`,
    `- date: ${new Date().toISOString()}`,
    `- command: \`${result.command}\``,
    '',
    '| figure | value | target | |',
    '|---|---|---|---|',
    rows,
    ...(notes ? ['', notes] : []),
    `<!-- bench:${result.benchmark}:end -->`,
  ].join('\n');
}

const header = `# Benchmarks

Written by \`npm run bench -- <name>\` (see bench/). Each section is replaced when its benchmark runs again.
Every figure is compared with a baseline measured in the same run on the same machine, because these machines
are shared and noisy: the ratio is the figure to trust, the absolute numbers move with the machine.
`;

export function writeResult(result: BenchResult): void {
  const current = fs.existsSync(reportFile) ? fs.readFileSync(reportFile, 'utf8') : header;
  const section = render(result);
  const pattern = new RegExp(
    `<!-- bench:${result.benchmark}:start -->[\\s\\S]*?<!-- bench:${result.benchmark}:end -->`,
  );
  const next = pattern.test(current)
    ? current.replace(pattern, section)
    : `${current.trimEnd()}\n\n${section}\n`;
  fs.writeFileSync(reportFile, next);
  process.stdout.write(`\n${section}\n\nwritten to ${path.relative(repoRoot, reportFile)}\n`);
}
