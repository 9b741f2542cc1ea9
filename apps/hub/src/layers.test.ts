/**
 * The layer rule of eslint.config.js (`hub/layers`, eslint/hub-layers.js) fires: code that reaches up from below
 * the modules, or into another module's internals by any relative path, is refused by the lint the repository
 * runs; the allowed arrows pass. Each snippet is linted as if it were the named file (its text replaces the
 * file's for this check only), with the repository's own configuration.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/**
 * The repository's configuration, with only the layer rule run: it needs no types, so the TypeScript program
 * the type-aware rules build (seconds per file) is not built.
 */
const eslint = new ESLint({
  cwd: root,
  ruleFilter: ({ ruleId }) => ruleId === 'hub/layers',
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
});

/** The layer rule's messages for `code` placed at `file` (relative to the repository). */
async function restrictedImports(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  const messages = result?.messages ?? [];
  const broken = messages.filter((message) => message.fatal === true);
  if (broken.length > 0) throw new Error(broken.map((message) => message.message).join('\n'));
  return messages.filter((message) => message.ruleId === 'hub/layers').map((message) => message.message);
}

describe('layer rules (eslint hub/layers)', () => {
  it('refuses an import from http/, agents/, platform/, config/ or access/ up into modules/', async () => {
    const up = [
      ['apps/hub/src/http/envelope.ts', "import { hubRoutes } from '../modules/hub/hub.routes.js';"],
      [
        'apps/hub/src/agents/presence.ts',
        "import type { AssetService } from '../modules/assets/assets.service.js';",
      ],
      [
        'apps/hub/src/platform/clock.ts',
        "import { createAuditModule } from '../modules/audit/audit.module.js';",
      ],
      [
        'apps/hub/src/platform/db/paging.ts',
        "export { readSetting } from '../../modules/settings/settings.service.js';",
      ],
      ['apps/hub/src/config/env.ts', "import type { TlsService } from '../modules/tls/tls.service.js';"],
      [
        'apps/hub/src/access/principal.ts',
        "import type { UserService } from '../modules/users/users.service.js';",
      ],
    ] as const;
    for (const [file, code] of up) {
      expect(await restrictedImports(file, `${code}\n`), file).toEqual([
        expect.stringMatching(/Below the modules/),
      ]);
    }
  });

  it("refuses a module importing another module's repository, routes or helpers, however the path is spelled", async () => {
    const cases = [
      ['apps/hub/src/modules/search/search.service.ts', '../assets/assets.repository.js'],
      ['apps/hub/src/modules/search/search.service.ts', '../groups/groups.routes.js'],
      ['apps/hub/src/modules/search/search.service.ts', '../metrics/metrics-budget.js'],
      ['apps/hub/src/modules/search/search.service.ts', '../assets/nested/assets.service.js'],
      ['apps/hub/src/modules/search/search.service.ts', '../../modules/assets/assets.repository.js'],
      [
        'apps/hub/src/modules/search/search.service.ts',
        '../../agents/../modules/groups/groups.repository.js',
      ],
      ['apps/hub/src/modules/search/search.service.ts', './../schedules/schedules.repository.js'],
      ['apps/hub/src/modules/sessions/nested/relay.ts', '../../assets/assets.repository.js'],
      ['apps/hub/src/modules/sessions/nested/relay.ts', '../../../modules/users/users.repository.js'],
    ] as const;
    for (const [file, target] of cases) {
      for (const code of [
        `import * as other from '${target}';\nvoid other;\n`,
        `export { x } from '${target}';\n`,
        `export const load = () => import('${target}');\n`,
      ]) {
        expect(await restrictedImports(file, code), `${file}: ${code}`).toEqual([
          expect.stringMatching(/Another module's internals/),
        ]);
      }
    }
  });

  it('refuses the wiring (hub.ts and its neighbours) reaching past a module file or service', async () => {
    const messages = await restrictedImports(
      'apps/hub/src/local-agent.ts',
      "import { findAsset } from './modules/assets/assets.repository.js';\nvoid findAsset;\n",
    );

    expect(messages).toEqual([expect.stringMatching(/public surface/)]);
  });

  it("refuses hub.ts's parts in hub/ reaching past a module file or service", async () => {
    const messages = await restrictedImports(
      'apps/hub/src/hub/modules.ts',
      "import { findAsset } from '../modules/assets/assets.repository.js';\nvoid findAsset;\n",
    );

    expect(messages).toEqual([expect.stringMatching(/public surface/)]);
  });

  it("allows a module's own files, other modules' services, module files and presenters, and the layers below", async () => {
    const code = [
      "import { visibleAssetIds } from '../assets/assets.service.js';",
      "import { createGroupsModule } from '../groups/groups.module.js';",
      "import { presentApiKey } from '../keys/keys.presenter.js';",
      "import { defineModule } from '../module.js';",
      "import { rawContext } from '../../http/raw-context.js';",
      "import type { Principal } from '../../access/principal.js';",
      "import { searchRoutes } from './search.routes.js';",
      'export { visibleAssetIds, createGroupsModule, presentApiKey, defineModule, rawContext, searchRoutes };',
      'export type { Principal };',
    ].join('\n');

    expect(await restrictedImports('apps/hub/src/modules/search/search.module.ts', `${code}\n`)).toEqual([]);
    // A module's own files by any path, and another module's service through modules/.
    expect(
      await restrictedImports(
        'apps/hub/src/modules/sessions/nested/relay.ts',
        [
          "import { a } from '../sessions.repository.js';",
          "import { b } from '../../sessions/nested/other.js';",
          "import { c } from '../../../modules/assets/assets.service.js';",
          'export { a, b, c };',
        ].join('\n'),
      ),
    ).toEqual([]);
    expect(
      await restrictedImports(
        'apps/hub/src/hub.ts',
        "import { createAssetsModule } from './modules/assets/assets.module.js';\nvoid createAssetsModule;\n",
      ),
    ).toEqual([]);
  });

  it('leaves tests free to wire what they need', async () => {
    const messages = await restrictedImports(
      'apps/hub/src/http/guard.test.ts',
      "import { findAsset } from '../modules/assets/assets.repository.js';\nvoid findAsset;\n",
    );

    expect(messages).toEqual([]);
  });
});
