import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullPath, routeList } from '@svc/protocol';
import { startTestHub, type TestHub } from '@svc/testkit';
import { buildOpenApiDocument } from './openapi.js';

const committedPath = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'openapi.json');

interface Operation {
  operationId: string;
  parameters: { name: string; in: string; required: boolean }[];
  security?: unknown[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
}
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

/** Names the paths whose operations differ, so a drift failure says where to look. */
function changedPaths(committedText: string, freshText: string): string {
  let committed: Document;
  try {
    committed = JSON.parse(committedText) as Document;
  } catch {
    return 'the committed file is not JSON';
  }
  const fresh = JSON.parse(freshText) as Document;
  const all = new Set([...Object.keys(committed.paths), ...Object.keys(fresh.paths)]);
  const changed = [...all].filter(
    (p) => JSON.stringify(committed.paths[p]) !== JSON.stringify(fresh.paths[p]),
  );
  if (changed.length === 0) return 'none; the document header or components changed';
  return changed.slice(0, 10).join(', ') + (changed.length > 10 ? ` and ${changed.length - 10} more` : '');
}

let t: TestHub;
beforeAll(async () => {
  t = await startTestHub();
});
afterAll(async () => {
  await t.close();
});

describe('OpenAPI document', () => {
  it('is served at /api/v2/openapi.json without any credential', async () => {
    const res = await t.request('GET', '/api/v2/openapi.json', { key: null });

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json).toHaveProperty('openapi', '3.1.0');
    // not wrapped in the {request_id, data} envelope
    expect(res.json).not.toHaveProperty('data');
  });

  it('is valid OpenAPI 3.1', async () => {
    const validator = new Validator();

    const result = await validator.validate(buildOpenApiDocument());

    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('fails validation for a broken document (the validator is really checking)', async () => {
    const broken = buildOpenApiDocument() as Document;
    const first = Object.values(broken.paths)[0];
    if (!first) throw new Error('no paths');
    for (const op of Object.values(first)) (op as { responses: unknown }).responses = 'nope';

    const result = await new Validator().validate(broken);

    expect(result.valid).toBe(false);
  });

  it('has one operation per route contract, named after it, on the right method and path', () => {
    const doc = buildOpenApiDocument() as Document;
    const operations = Object.entries(doc.paths).flatMap(([p, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path: p, method, op })),
    );

    expect(operations).toHaveLength(routeList.length);
    expect(new Set(operations.map((o) => o.op.operationId)).size).toBe(routeList.length);
    for (const route of routeList) {
      const op = doc.paths[fullPath(route)]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${fullPath(route)}`).toBeDefined();
      expect(op?.operationId).toBe(route.operationId ?? route.name);

      const templated = [...fullPath(route).matchAll(/\{([a-zA-Z_]+)\}/g)].map((m) => m[1]);
      const declared = (op?.parameters ?? []).filter((p) => p.in === 'path');
      expect(declared.map((p) => p.name).sort(), route.name).toEqual(templated.sort());
      expect(declared.every((p) => p.required)).toBe(true);
      expect(Boolean(op?.requestBody), route.name).toBe(Boolean(route.body));
      expect(op?.responses).toHaveProperty(String(route.successStatus ?? 200));
      if (route.auth === 'public') expect(op?.security).toEqual([]);
      else expect(op?.responses).toHaveProperty('401');
    }
  });

  it('matches the committed apps/hub/openapi.json', () => {
    const fresh = `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
    const committed = fs.readFileSync(committedPath, 'utf8');

    expect(
      committed === fresh,
      'apps/hub/openapi.json is out of date with the route inventory: run `npm run openapi` and commit it' +
        ` (paths that differ: ${changedPaths(committed, fresh)})`,
    ).toBe(true);
  });

  it('serves exactly the committed document', async () => {
    const res = await t.request('GET', '/api/v2/openapi.json', { key: null });
    const committed: unknown = JSON.parse(fs.readFileSync(committedPath, 'utf8'));

    expect(JSON.parse(res.text)).toEqual(committed);
  });
});
