// Type-aware lint: the rules that catch what `tsc --strict` does not (floating promises, `any` leaking
// out of parsed outside data into typed code). `npm run lint`; `npm test` runs it first (pretest).
import tseslint from 'typescript-eslint';

// A test's title stays on its `test(` line, as Prettier keeps it: the name the runner prints is found with one grep.
const TEST_TITLE_LINE = String.raw`^\s*(test|it|describe|suite)(\.\w+)?\(['"\x60]`;

export default tseslint.config(
  { ignores: ['dist/**', 'web/dist/**', 'node_modules/**', 'schema/**', 'bin/**'] },
  {
    // Lines up to 120 characters (Prettier's printWidth). Prettier does not split strings, template literals
    // or comments: split them by hand (a concatenation gives the same string). ESLint's own max-len is
    // deprecated but kept until ESLint 11; @stylistic/max-len replaces it then.
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts', 'examples/**/*.ts', 'web/src/**/*.{ts,tsx}'],
    languageOptions: { parser: tseslint.parser },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: { 'max-len': ['error', { code: 120, tabWidth: 2, ignorePattern: TEST_TITLE_LINE }] },
  },
  {
    files: ['src/**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { project: './tsconfig.check.json', tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unsafe-assignment': 'error',
      '@typescript-eslint/no-unsafe-member-access': 'error',
      '@typescript-eslint/no-unsafe-call': 'error',
      '@typescript-eslint/no-unsafe-return': 'error',
      '@typescript-eslint/no-unsafe-argument': 'error',
      // `_`-prefixed names drop a field from a rest copy (`const { $schema: _, ...rest } = json`).
      '@typescript-eslint/no-unused-vars': ['error', { varsIgnorePattern: '^_', argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Abort reasons (`signal.reason`) and errors caught elsewhere are passed on as they are.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // Methods that implement a Promise-returning interface (Transport.send, ModelProvider.stream) are
      // async without awaiting anything; that is not a bug.
      '@typescript-eslint/require-await': 'off',
      // Reports assertions tsc needs (contextual typing) and its --fix broke the build; style, not safety.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
  {
    // Tests: only the promise rules (a floating promise in a test hides a failure).
    files: ['test/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { project: './tsconfig.check.json', tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // node:test's test()/describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }],
      }],
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
);
