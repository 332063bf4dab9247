/**
 * Preloaded (`node --test --import`) by `npm test` and `npm run test:unit`: inside a unit test
 * file (`*.unit.test.ts`) every way to start a child process throws, so a unit test that starts
 * one fails at once and names what it tried to run. Other test files, and the test runner itself,
 * are left alone. See CONTRIBUTING.md, "Tests".
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

/** The suffix that marks a test file that starts no child process. */
export const UNIT_SUFFIX = '.unit.test.ts';

const BLOCKED = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

/** Makes every child_process starter throw in this process (ESM named imports included). */
export function blockChildProcesses(file: string): void {
  for (const name of BLOCKED) {
    const value = (command: unknown): never => {
      throw new Error(
        `${file} is a unit test (${UNIT_SUFFIX}) but called child_process.${name}(${JSON.stringify(command)}): ` +
          `start processes only in tests without the ${UNIT_SUFFIX} suffix`,
      );
    };
    Object.defineProperty(childProcess, name, { value, writable: true, configurable: true });
  }
  syncBuiltinESMExports();
}

// NODE_TEST_CONTEXT is set in the processes the test runner starts for each file, not in the runner.
const file = process.argv[1] ?? '';
if (process.env.NODE_TEST_CONTEXT !== undefined && file.endsWith(UNIT_SUFFIX)) blockChildProcesses(file);
