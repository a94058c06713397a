// @ts-check
import js from '@eslint/js';
import vitest from '@vitest/eslint-plugin';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'coverage/', '.data/', '.tmp/', 'bench-results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': [
        'error',
        // Tests type store modules they may only import after the runtime set the environment.
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      // Functions implementing a promise-returning interface stay async even when they do not await.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Named exports only: a handler imports exactly what it needs (style.md).
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' },
      ],
      'no-console': ['error', { allow: ['warn', 'error'] }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    files: ['test/**/*.ts'],
    plugins: { vitest },
    rules: {
      ...vitest.configs.recommended.rules,
      'vitest/no-focused-tests': 'error',
      'vitest/no-disabled-tests': 'error',
      // Tests assert through helpers that call expect themselves.
      'vitest/expect-expect': 'off',
      '@typescript-eslint/unbound-method': 'off',
      // Asymmetric matchers such as expect.any() are typed any.
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
  {
    files: ['shared/cli/**', 'infra/local/**', 'test/bench/**', 'test/load/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['eslint.config.js', 'vitest.config.ts', '**/*.d.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['eslint.config.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['examples/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Plain Node with no dependencies: no type information, Node's globals, and a program that prints.
    files: ['examples/**/*.mjs'],
    languageOptions: {
      globals: { Buffer: 'readonly', console: 'readonly', fetch: 'readonly', process: 'readonly' },
    },
    rules: { 'no-console': 'off' },
  },
);
