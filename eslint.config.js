// @ts-check
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/*
 * The hub's layers (docs/architecture.md): modules/ sits on access/, agents/, http/, platform/ and config/;
 * no arrow runs back up. A module's public surface is its `<area>.module.ts`, its `*.service.ts` files and its
 * presenters; another module's repositories, routes and helpers are its own business. Tests wire what they need
 * and are exempt, like hub.ts and its parts in hub/ (apps/hub/src/layers.test.ts proves each rule fires).
 */
const hubTests = ['apps/hub/src/**/*.test.ts', 'apps/hub/src/testing/**', 'apps/hub/src/e2e/**'];
const publicFile = '[^/]+\\.(module|service|presenter)\\.js$';
const hubBoundaries = [
  {
    files: ['apps/hub/src/{access,agents,config,connectors,http,platform}/**/*.ts'],
    ignores: hubTests,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)modules/',
              message:
                'Below the modules: pass what a module provides in as a dependency, or move the shared piece down here.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/hub/src/modules/*/**/*.ts'],
    ignores: hubTests,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^\\.\\./(?!\\.\\.)[^/]+/(?!${publicFile})`,
              message:
                "Another module's internals: use its service (or its module file); its repository and routes are its own.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/hub/src/*.ts', 'apps/hub/src/hub/*.ts'],
    ignores: hubTests,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^\\.\\.?/modules/[^/]+/(?!${publicFile})`,
              message: "Wiring uses a module's public surface: its module file and services.",
            },
          ],
        },
      ],
    },
  },
];

export default defineConfig(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', 'coverage/**'] },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js'] },
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
  ...hubBoundaries,
  {
    files: ['**/*.test.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['eslint.config.js', 'vitest.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
