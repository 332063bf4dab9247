/**
 * Installs the real agent CLIs the harness tests wrap (Claude Code, Codex, Gemini CLI, Qwen Code,
 * pinned in test/harness/clis/package-lock.json) into test/harness/clis/node_modules, when they
 * are missing or the lock changed. They are not dependencies of agentpipe: a user installs the
 * CLI they want to wrap. Runs before `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const dir = path.resolve(import.meta.dirname, '../test/harness/clis');
const lock = createHash('sha256')
  .update(readFileSync(path.join(dir, 'package-lock.json')))
  .digest('hex');
const stamp = path.join(dir, 'node_modules/.installed-lock');
if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== lock) {
  console.error('harness-clis: installing the wrapped agent CLIs for the harness tests (test/harness/clis)');
  const run = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit' });
  if (run.status === 0) writeFileSync(stamp, lock);
  else process.exitCode = run.status ?? 1;
}
