import { defineModule } from '../module.js';
import { filesRawRoutes, filesRoutes } from './files.routes.js';
import { createFilesService, type FilesServiceDeps } from './files.service.js';

/** Files of an asset through its agent: list, read (raw bytes), write, mkdir, rename, copy, delete. */
export function createFilesModule(deps: FilesServiceDeps) {
  const files = createFilesService(deps);
  return defineModule({
    name: 'files',
    services: { files },
    handlers: filesRoutes(files),
    rawHandlers: filesRawRoutes(files),
  });
}
