/** Writes the committed OpenAPI document (apps/hub/openapi.json) from the route inventory. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from '../src/http/openapi.js';

const target = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'openapi.json');
fs.writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
process.stdout.write(`wrote ${target}\n`);
