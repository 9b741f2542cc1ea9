/**
 * Every name and description a caller gives is refused with 400 `validation`, naming the field, when it
 * holds a control character, an escape sequence or a bidirectional control: they reach logs, terminals and
 * the console (display-text.ts in protocol). Nothing is stored.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayTextProblem, type Asset } from '@svc/protocol';
import type { TestHub } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';

/** What an attacker would put in a name: a screen clear, a title set, a reversed extension, a fake line. */
const hostile: [string, string][] = [
  ['an ANSI escape sequence', 'web\u001b[2J\u001b[31m01'],
  ['an OSC title', 'web\u001b]0;owned\u0007'],
  ['a right-to-left override', 'invoice\u202Efdp.exe'],
  ['a bidi isolate', '\u2067web01'],
  ['a left-to-right mark', 'web\u200e01'],
  ['the Arabic letter mark', 'web\u061c01'],
  ['a C1 control (NEL)', 'web\u008501'],
  ['a line separator', 'web\u2028ok 200'],
  ['a carriage return', 'web\r01'],
  ['a bell', 'web\u0007'],
  ['DEL', 'web\u007f'],
];

interface Field {
  route: string;
  field: string;
  /** Sends `value` in that field; resolves the response. */
  send: (t: TestHub, value: string) => ReturnType<TestHub['request']>;
}

const fields: Field[] = [
  {
    route: 'POST /keys',
    field: 'body.name',
    send: (t, name) =>
      t.request('POST', '/api/v2/keys', { body: { name, role: 'viewer', scopes: ['assets:read'] } }),
  },
  {
    route: 'PATCH /keys/{id}',
    field: 'body.name',
    send: async (t, name) => {
      const key = await t.createKey({ name: 'before' });
      return t.request('PATCH', `/api/v2/keys/${key.id}`, { body: { name } });
    },
  },
  {
    route: 'POST /assets',
    field: 'body.name',
    send: (t, name) => t.request('POST', '/api/v2/assets', { body: { name } }),
  },
  {
    route: 'POST /assets',
    field: 'body.description',
    send: (t, description) => t.request('POST', '/api/v2/assets', { body: { name: 'x', description } }),
  },
  {
    route: 'PUT /assets/{id}',
    field: 'body.name',
    send: async (t, name) => {
      const asset = await t.createAsset({ name: 'before' });
      return t.request('PUT', `/api/v2/assets/${asset.id}`, { body: { name } });
    },
  },
  {
    route: 'PUT /assets/{id}',
    field: 'body.description',
    send: async (t, description) => {
      const asset = await t.createAsset({ name: 'before' });
      return t.request('PUT', `/api/v2/assets/${asset.id}`, { body: { description } });
    },
  },
  {
    route: 'POST /groups',
    field: 'body.name',
    send: (t, name) => t.request('POST', '/api/v2/groups', { body: { name } }),
  },
  {
    route: 'POST /groups',
    field: 'body.description',
    send: (t, description) => t.request('POST', '/api/v2/groups', { body: { name: 'g', description } }),
  },
  {
    route: 'PATCH /groups/{id}',
    field: 'body.name',
    send: async (t, name) => {
      const group = await t.request('POST', '/api/v2/groups', { body: { name: 'before' } });
      return t.request('PATCH', `/api/v2/groups/${(group.json.data as { id: string }).id}`, {
        body: { name },
      });
    },
  },
  {
    route: 'PATCH /groups/{id}',
    field: 'body.description',
    send: async (t, description) => {
      const group = await t.request('POST', '/api/v2/groups', { body: { name: 'before' } });
      return t.request('PATCH', `/api/v2/groups/${(group.json.data as { id: string }).id}`, {
        body: { description },
      });
    },
  },
  {
    route: 'POST /enrollment-tokens',
    field: 'body.name',
    send: (t, name) => t.request('POST', '/api/v2/enrollment-tokens', { body: { name } }),
  },
];

/** Every stored name and description, to show a refused request left nothing behind. */
async function storedText(t: TestHub): Promise<string> {
  const db = t.hub.database.db;
  const rows = [
    await db.selectFrom('assets').select(['name', 'description']).execute(),
    await db.selectFrom('groups').select(['name', 'description']).execute(),
    await db.selectFrom('api_keys').select(['name']).execute(),
    await db.selectFrom('enrollment_tokens').select(['name']).execute(),
  ];
  return JSON.stringify(rows);
}

describe('names and descriptions a caller gives', () => {
  const hub = useTestHub();

  it.each(fields.map((f) => [`${f.route} ${f.field}`, f] as const))(
    '%s: refuses controls, escape sequences and bidi characters with 400 naming the field',
    async (_label, { field, send }) => {
      const t = hub();
      for (const [what, value] of hostile) {
        const res = await send(t, value);
        expect([what, res.status, res.json.error]).toEqual([what, 400, 'validation']);
        // A nullable field adds the other branch's complaint after it; the first one is what a caller acts on.
        const first = (res.json.details as unknown[] | undefined)?.[0];
        expect([what, first]).toEqual([what, { field, problem: displayTextProblem }]);
      }
      const stored = await storedText(t);
      for (const [, value] of hostile) expect(stored).not.toContain(JSON.stringify(value).slice(1, -1));
    },
  );

  it.each(fields.map((f) => [`${f.route} ${f.field}`, f] as const))(
    '%s: takes names in any script, emoji included',
    async (_label, { send }) => {
      const t = hub();
      for (const value of ['Zürich rack 3', 'خادم الويب', 'サーバー', '👩‍💻 desk']) {
        const res = await send(t, value);
        expect([value, res.status < 300]).toEqual([value, true]);
      }
    },
  );

  it('agrees with the rule for any name: stored exactly when it has no unsafe character, else 400', async () => {
    const t = hub();
    // eslint-disable-next-line no-control-regex -- the oracle names the very characters the rule refuses
    const unsafe = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/u;
    const pieces = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }),
      fc.constantFrom('\u001b[', '\u202e', '\u2069', '\u0085', '\u2028', 'é', '👩‍💻', 'ـ', ' '),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(pieces, { minLength: 1, maxLength: 12 }), async (parts) => {
        const name = parts.join('').slice(0, 120);
        const res = await t.request('POST', '/api/v2/assets', { body: { name } });
        if (unsafe.test(name)) {
          expect([res.status, res.json.error]).toEqual([400, 'validation']);
        } else {
          expect(res.status).toBe(201);
          expect((res.json.data as Asset).name).toBe(name);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('keeps tabs and line feeds in a description', async () => {
    const t = hub();
    const res = await t.request('POST', '/api/v2/assets', {
      body: { name: 'multi-line', description: 'rack 3\n\tshelf 2' },
    });
    expect(res.status).toBe(201);
    expect(res.json.data).toMatchObject({ description: 'rack 3\n\tshelf 2' });
  });
});
