import type { ExecManyRequest } from '@svc/protocol';
import { rawContext } from '../../http/raw-context.js';
import type { Handlers, RawHandlers } from '../../http/register-routes.js';
import { acceptsNdjson, sendFanOutJson, streamFanOut } from './exec-stream.js';
import type { ExecService } from './exec.service.js';

export function execRoutes(exec: ExecService) {
  return {
    'exec.single': ({ params, body, ctx }) => exec.runOne(ctx, params.id, body),
  } satisfies Handlers;
}

/**
 * A fan-out answers one JSON body, or NDJSON lines as targets answer when the client asks for them; both are
 * written as results arrive.
 */
export function execRawRoutes(exec: ExecService) {
  return {
    'exec.many': async (request, reply) => {
      const ctx = rawContext(request);
      const body = request.body as ExecManyRequest;
      // Every refusal (validation, 404, audit failure) is thrown here, before the 200.
      const fanOut = await exec.startMany(ctx, body);
      if (acceptsNdjson(request.headers.accept)) await streamFanOut(request, reply, fanOut);
      else await sendFanOutJson(request, reply, fanOut);
      return reply;
    },
  } satisfies RawHandlers;
}
