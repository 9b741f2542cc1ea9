/**
 * The layer rules of eslint.config.js fire: code that reaches up from below the modules, or into another
 * module's internals, is refused by the lint the repository runs; the allowed arrows pass. Each snippet is
 * linted as if it were the named file (its text replaces the file's for this check only).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const eslint = new ESLint({ cwd: root });

/** The no-restricted-imports messages for `code` placed at `file` (relative to the repository). */
async function restrictedImports(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'no-restricted-imports')
    .map((message) => message.message);
}

// The first lint builds the TypeScript program the type-aware rules need: seconds, not milliseconds.
describe('layer rules (eslint no-restricted-imports)', { timeout: 60_000 }, () => {
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

  it("refuses a module importing another module's repository, routes or helpers", async () => {
    const file = 'apps/hub/src/modules/search/search.service.ts';
    for (const target of [
      '../assets/assets.repository.js',
      '../groups/groups.routes.js',
      '../metrics/metrics-budget.js',
      '../assets/nested/assets.service.js',
    ]) {
      expect(
        await restrictedImports(file, `import * as other from '${target}';\nvoid other;\n`),
        target,
      ).toEqual([expect.stringMatching(/Another module's internals/)]);
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
