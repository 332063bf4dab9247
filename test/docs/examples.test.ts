/**
 * The examples in examples/ run as written, and the README and docs show them verbatim (so an example cannot rot):
 * each file is executed with the pinned Node against the built package, as a user's project imports it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';
import { anthropicBlock, anthropicStream, startFakeServer } from '../model/fake-servers.ts';

const example = (name: string) => readFileSync(path.join(ROOT, 'examples', name), 'utf8');

/** Runs examples/`name` in `cwd` (the package imports itself by name: `import ... from 'agentpipe'`). */
function runExample(name: string, cwd: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [path.join(ROOT, 'examples', name)], {
    cwd,
    env: { ...process.env, ANTHROPIC_API_KEY: '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end();
  let [stdout, stderr] = ['', ''];
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

test('README: the query() example is examples/query.ts; a failed run reports failed (exit 1), a good one its answer', async () => {
  assert.ok(readFileSync(path.join(ROOT, 'README.md'), 'utf8').includes(example('query.ts')));
  const cwd = tempDir({ 'a.ts': 'export const a = 1;\n' });
  const failed = await runExample('query.ts', cwd, {});
  assert.equal(failed.code, 1, failed.stderr);
  assert.match(failed.stderr, /^failed \(success\): No Anthropic API key/);
  assert.equal(failed.stdout, '');
  const frames = anthropicStream(
    [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'One file: a.ts.' }])],
    'end_turn',
  );
  const api = await startFakeServer({ kind: 'sse', frames });
  try {
    const ok = await runExample('query.ts', cwd, { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-ant-x' });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^One file: a\.ts\.\ncost \$\d+\.\d{4}, denied: 0\n$/);
  } finally {
    await api.close();
  }
});
