import type { IncomingMessage } from 'node:http';
import { rawContext } from '../../http/raw-context.js';
import { sendError } from '../../http/envelope.js';
import type { Handlers, RawHandlers } from '../../http/register-routes.js';
import { refuseUpgrade, type UpgradeHandlers } from '../../http/upgrade.js';
import { pageRequest } from '../../platform/db/paging.js';
import { HubError } from '../../platform/hub-error.js';
import type { SessionService } from './sessions.service.js';

export function sessionRoutes(sessions: SessionService) {
  return {
    'sessions.create': ({ params, body, ctx }) => sessions.create(ctx, params.id, body),
    'sessions.list': ({ query, ctx }) => sessions.list(ctx, query.state, pageRequest(query)),
    'sessions.get': ({ params, ctx }) => sessions.get(ctx, params.id),
    'sessions.close': ({ params, ctx }) => sessions.close(ctx, params.id),
    'sessions.recordings': ({ query, ctx }) => sessions.recordings(ctx, pageRequest(query)),
    'sessions.recording': ({ params, ctx }) => sessions.recording(ctx, params.id),
    'sessions.recordingDelete': ({ params, ctx }) => sessions.deleteRecording(ctx, params.id),
  } satisfies Handlers;
}

export function sessionRawRoutes(sessions: SessionService) {
  return {
    /** The `.cast` file, by id: never a path. */
    'sessions.recordingCast': async (request, reply) => {
      const ctx = rawContext(request);
      const { id } = request.params as { id: string };
      const { recording, text } = await sessions.recordingCast(ctx, id);
      return reply
        .code(200)
        .header('Content-Type', 'application/x-asciicast; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${recording.id}.cast"`)
        .header('Cache-Control', 'no-store')
        .send(text);
    },
    'sessions.attach': async (request, reply) =>
      sendError(
        request,
        reply,
        new HubError('validation', 'This is a session attach: connect with an Upgrade: websocket request.'),
      ),
  } satisfies RawHandlers;
}

/** `/api/v2/sessions/{id}/attach` → the id (the upgrade router checked the path's shape). */
function sessionIdOf(request: IncomingMessage): string {
  const path = new URL(request.url ?? '/', 'http://hub.invalid').pathname;
  const match = /\/sessions\/([^/]+)\/attach\/?$/.exec(path);
  return decodeURIComponent(match?.[1] ?? '');
}

export function sessionUpgrades(sessions: SessionService) {
  return {
    'sessions.attach': (principal, request, socket, head, recheck) => {
      const id = sessionIdOf(request);
      sessions.checkAttach(principal, id).then(
        (target) => {
          sessions.attach(principal, target, request, socket, head, recheck);
        },
        (error: unknown) => {
          refuseUpgrade(socket, error instanceof HubError ? error : new HubError('internal_error'));
        },
      );
    },
  } satisfies UpgradeHandlers;
}
