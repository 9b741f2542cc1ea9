import { rawContext } from '../../http/raw-context.js';
import type { Handlers, RawHandlers } from '../../http/register-routes.js';
import { downloadName } from './file-transfer.js';
import type { FilesService } from './files.service.js';

export function filesRoutes(files: FilesService) {
  return {
    'files.list': ({ params, query, ctx }) => files.list(ctx, params.id, query.path),
    'files.write': ({ params, body, ctx }) => files.write(ctx, params.id, body),
    'files.mkdir': ({ params, body, ctx }) => files.mkdir(ctx, params.id, body),
    'files.rename': ({ params, body, ctx }) => files.rename(ctx, params.id, body),
    'files.copy': ({ params, body, ctx }) => files.copy(ctx, params.id, body),
    'files.delete': ({ params, query, ctx }) => files.remove(ctx, params.id, query),
  } satisfies Handlers;
}

/** Downloads are raw bytes, not the JSON envelope. */
export function filesRawRoutes(files: FilesService) {
  return {
    'files.read': async (request, reply) => {
      const { id } = request.params as { id: string };
      const { path } = request.query as { path: string };
      const file = await files.read(rawContext(request), id, path);
      const name = downloadName(file.path);
      return reply
        .code(200)
        .type('application/octet-stream')
        .header(
          'Content-Disposition',
          `attachment; filename="${name.ascii}"; filename*=UTF-8''${name.encoded}`,
        )
        .header('Content-Length', String(file.bytes.length))
        .send(file.bytes);
    },
  } satisfies RawHandlers;
}
