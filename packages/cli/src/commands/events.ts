/**
 * `svc events tail [--types …] [--count n]`: the hub's live feed (`/events/stream`), one line per event or
 * NDJSON with --json, until Ctrl-C or --count events. The SDK's subscription reconnects after a drop; a
 * revoked or expired key (close 4001) or a refused upgrade (401, 403) ends it with exit code 3.
 */
import type { Command } from 'commander';
import WebSocket from 'ws';
import { parseEventTypes, type EventEnvelope } from '@svc/protocol';
import { subscribeEvents, type WebSocketLike } from '@svc/sdk';
import { parseInteger } from '../args.js';
import type { Context } from '../context.js';
import { CliError, exitCodes, exitCodeForStatus } from '../exit-codes.js';
import { formatEvent } from '../format.js';

interface TailOptions {
  types?: string;
  count?: string;
}

export function registerEvents(program: Command, ctx: Context): void {
  const events = program.command('events').description('the live event feed');
  events
    .command('tail')
    .description('print events as they happen (Ctrl-C stops)')
    .option('--types <list>', 'only these event types, comma-separated')
    .option('--count <n>', 'stop after this many events')
    .action(async (options: TailOptions, command: Command) => {
      const parsed = parseEventTypes(options.types);
      if (!parsed.ok) {
        throw new CliError(
          `unknown event type "${parsed.unknown}"`,
          exitCodes.usage,
          'docs/cli.md lists the event types',
        );
      }
      const count = options.count ? parseInteger(options.count, '--count', 1, 1_000_000_000) : null;
      const connection = ctx.connect(command);
      // The credential and the address are checked once, with a clear answer, before the feed's retries.
      await connection.client.call('whoami');
      const json = ctx.globals(command).json === true;
      await new Promise<void>((resolve, reject) => {
        let seen = 0;
        let refusedStatus: number | null = null;
        const createSocket = (url: string, headers: Record<string, string>): WebSocketLike => {
          const socket = new WebSocket(url, {
            headers,
            ...(connection.caPem ? { ca: connection.caPem } : {}),
            maxPayload: 1024 * 1024,
          });
          socket.on('unexpected-response', (_request, response) => {
            refusedStatus = response.statusCode ?? null;
            socket.terminate();
          });
          return socket as unknown as WebSocketLike;
        };
        const finish = (error?: Error) => {
          ctx.io.interrupt.removeEventListener('abort', onAbort);
          subscription.close();
          if (error) reject(error);
          else resolve();
        };
        const onAbort = () => {
          ctx.exitWith(exitCodes.interrupted);
          finish();
        };
        const subscription = subscribeEvents({
          baseUrl: connection.hubUrl,
          apiKey: connection.apiKey,
          ...(parsed.types ? { types: parsed.types } : {}),
          createSocket,
          onEvent(event: EventEnvelope) {
            if (json) ctx.json(event);
            else ctx.out(formatEvent(event));
            seen += 1;
            if (count !== null && seen >= count) finish();
          },
          onStatus(status) {
            if (status.state === 'open' && status.reconnected)
              ctx.note('events: connected again (events meanwhile were missed)');
            if (status.state !== 'closed') return;
            if (status.retryInMs === null) {
              finish(
                new CliError(
                  'the hub ended the feed: the key was revoked or expired',
                  exitCodes.auth,
                  'sign in again with a valid key',
                ),
              );
              return;
            }
            const refused = refusedStatus;
            refusedStatus = null;
            if (refused !== null && (refused === 401 || refused === 403 || refused === 400)) {
              finish(
                new CliError(
                  `the hub refused the event feed (${String(refused)})`,
                  exitCodeForStatus(refused),
                  refused === 403 ? 'the key needs the events:subscribe scope' : null,
                ),
              );
              return;
            }
            ctx.note(
              `events: connection lost (${String(status.code)}); trying again in ${String(Math.ceil(status.retryInMs / 1000))} s`,
            );
          },
        });
        if (ctx.io.interrupt.aborted) onAbort();
        else ctx.io.interrupt.addEventListener('abort', onAbort, { once: true });
      });
    });
}
