import { sendError } from '../../http/envelope.js';
import { rawContext } from '../../http/raw-context.js';
import type { Handlers, RawHandlers } from '../../http/register-routes.js';
import type { UpgradeHandlers } from '../../http/upgrade.js';
import { HubError } from '../../platform/hub-error.js';
import type { DesktopSessionService } from './desktop-sessions.js';
import type { DesktopCredentialService } from './desktop.service.js';

export function desktopRoutes(desktop: DesktopCredentialService, sessions: DesktopSessionService) {
  return {
    'desktop.credentials': ({ params }) => desktop.status(params.id),
    'desktop.setCredentials': ({ params, body, ctx }) => desktop.set(ctx, params.id, body),
    'desktop.clearCredentials': ({ params, ctx }) => desktop.clear(ctx, params.id),
    'desktop.createSession': ({ params, body, ctx }) => sessions.create(ctx, params.id, body?.device_proof),
    'desktop.sessions': ({ ctx }) => sessions.list(ctx.principal),
    'desktop.closeSession': ({ params, ctx }) => sessions.close(ctx, params.session_id),
    'desktop.recordings': ({ ctx }) => sessions.recordings(ctx.principal),
  } satisfies Handlers;
}

export function desktopRawRoutes(sessions: DesktopSessionService) {
  return {
    'desktop.attach': async (request, reply) =>
      sendError(
        request,
        reply,
        new HubError('validation', 'This is a desktop stream: connect with an Upgrade: websocket request.'),
      ),
    'desktop.recording': async (request, reply) => {
      const { recording_id: id } = request.params as { recording_id: string };
      const { info, body, length } = await sessions.openRecording(rawContext(request), id);
      reply
        .code(200)
        .type('application/octet-stream')
        .header('Content-Disposition', `attachment; filename="${info.id}.svcrfb"`);
      if (length !== null) reply.header('Content-Length', String(length));
      return reply.send(body);
    },
  } satisfies RawHandlers;
}

export function desktopUpgrades(sessions: DesktopSessionService) {
  return {
    'desktop.attach': (principal, request, socket, head, recheck) => {
      sessions.attach(principal, request, socket, head, recheck);
    },
  } satisfies UpgradeHandlers;
}
