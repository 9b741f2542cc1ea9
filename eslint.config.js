// @ts-check
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import { hubLayers } from './eslint/hub-layers.js';

/*
 * The hub's layers (docs/architecture.md): modules/ sits on access/, agents/, http/, platform/ and config/;
 * no arrow runs back up. A module's public surface is its `<area>.module.ts`, its `*.service.ts` files and its
 * presenters; another module's repositories, routes and helpers are its own business, however the path to them
 * is spelled (eslint/hub-layers.js resolves each import). Tests wire what they need and are exempt
 * (apps/hub/src/layers.test.ts proves each rule fires).
 */
const hubTests = ['apps/hub/src/**/*.test.ts', 'apps/hub/src/testing/**', 'apps/hub/src/e2e/**'];
const hubBoundaries = {
  files: ['apps/hub/src/**/*.ts'],
  ignores: hubTests,
  plugins: { hub: { rules: { layers: hubLayers } } },
  rules: { 'hub/layers': 'error' },
};

export default defineConfig(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', 'coverage/**'] },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js', 'eslint/hub-layers.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'No default exports.' },
      ],
    },
  },
  hubBoundaries,
  {
    files: ['**/*.test.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // This file proves compile-time checks over every route contract: the typecheck runs them. Type-aware lint
    // rules on it cost about a third of the whole lint in the type checker (decision 0065), so it is linted
    // without type information.
    files: ['apps/hub/src/modules/module.test.ts'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['eslint.config.js', 'eslint/hub-layers.js', 'vitest.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
