/**
 * `svc-agent settings wizard`: asks for the settings a person usually changes, one by one; an empty answer
 * keeps the current value. With --yes it asks nothing and writes the current base settings (low-power mode,
 * container endpoint, power actions) into the file where they are not yet there, so the file says what the
 * agent does. Intervals are only written when answered: an unwritten interval follows low-power mode.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import {
  describeSettings,
  parseSettingValue,
  type ResolvedSettings,
  type SettingKey,
} from '../config/settings.js';

/** Resolves with the answer, or null when there is no more input. */
export type Ask = (question: string) => Promise<string | null>;

const asked: { key: SettingKey; question: string }[] = [
  { key: 'hub_url', question: 'Hub URL' },
  { key: 'low_power_mode', question: 'Low-power mode (true/false)' },
  {
    key: 'docker_endpoint',
    question: 'Container engine endpoint (socket path, unix:// or http(s)://host:port)',
  },
  { key: 'allow_power_actions', question: 'Allow the hub to reboot and shut down this machine (true/false)' },
  { key: 'collect_interval', question: 'Metrics interval (30s, 5m, …)' },
  { key: 'heartbeat_interval', question: 'Heartbeat interval (30s, 2m, …)' },
];
const writtenWithYes: SettingKey[] = ['low_power_mode', 'docker_endpoint', 'allow_power_actions'];

export interface WizardOptions {
  resolved: ResolvedSettings;
  fileContent: Record<string, unknown>;
  /** null with --yes. */
  ask: Ask | null;
  write: (line: string) => void;
}

export async function runWizard(options: WizardOptions): Promise<Record<string, string | boolean>> {
  const current = new Map(describeSettings(options.resolved).map((row) => [row.key, row.value]));
  const patch: Record<string, string | boolean> = {};
  for (const { key, question } of asked) {
    const shown = current.get(key) ?? '';
    if (!options.ask) {
      if (writtenWithYes.includes(key) && !(key in options.fileContent)) {
        const parsed = parseSettingValue(key, shown);
        if (parsed.ok) patch[key] = parsed.stored;
      }
      continue;
    }
    for (let tries = 0; tries < 3; tries++) {
      const answer = await options.ask(`${question} [${shown}]: `);
      if (answer === null || answer.trim() === '') break;
      const parsed = parseSettingValue(key, answer.trim());
      if (parsed.ok) {
        patch[key] = parsed.stored;
        break;
      }
      options.write(`${parsed.message}\n`);
    }
  }
  return patch;
}

/** Questions on `output`, answers from `input` (a terminal or a pipe). */
export function readlineAsk(input: Readable, output: Writable): { ask: Ask; close: () => void } {
  const rl = createInterface({ input, output, terminal: false });
  const lines: string[] = [];
  const waiting: ((line: string | null) => void)[] = [];
  let closed = false;
  rl.on('line', (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else lines.push(line);
  });
  rl.on('close', () => {
    closed = true;
    for (const next of waiting.splice(0)) next(null);
  });
  const ask: Ask = (question) => {
    output.write(question);
    const line = lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (closed) return Promise.resolve(null);
    return new Promise((resolve) => waiting.push(resolve));
  };
  return {
    ask,
    close: () => {
      rl.close();
    },
  };
}
