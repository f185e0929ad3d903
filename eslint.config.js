// One lint configuration for every TypeScript workspace; type-aware so that
// floating promises and unsafe any flows are caught, not only style.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'wasm/build/**', 'web/public/build/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-confusing-void-expression': 'off',
      eqeqeq: ['error', 'always'],
      // node:test's test()/describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }],
      }],
    },
  },
  {
    // web/: page and worker code has its own libs (DOM, WebWorker), so it is
    // checked against web's tsconfigs rather than found by the project service.
    files: ['web/src/**/*.ts', 'web/lab/**/*.ts', 'web/bench/**/*.ts'],
    languageOptions: {
      parserOptions: {
        projectService: false,
        project: ['./web/tsconfig.json', './web/tsconfig.test.json', './web/tsconfig.worker.json'],
        tsconfigRootDir: import.meta.dirname,
      },
      globals: { ...globals.browser, ...globals.worker, ...globals.node },
    },
  },
  {
    // protocol/: bundled into the page and its workers as well as run in Node.
    // Its tsconfig has no Node types; this also keeps classic zod (hundreds of
    // KB in a bundle) out of it. Tests and fuzz targets run in Node only.
    files: ['protocol/src/**/*.ts'],
    ignores: ['protocol/src/**/*.test.ts', 'protocol/src/fuzz/**'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'zod', message: 'import zod/mini: the page bundles this package' }],
        patterns: [
          { group: ['node:*'], message: 'the protocol package runs in browsers too: no Node modules' },
          { group: ['@lanterna/*'], message: 'the protocol package imports nothing of ours' },
        ],
      }],
      'no-restricted-globals': ['error',
        { name: 'Buffer', message: 'use Uint8Array / DataView' },
        { name: 'process', message: 'no Node globals in the protocol package' }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
