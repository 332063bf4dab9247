/** The `view` command line: errors, and `-p` never loading the viewer. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT, runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';

test('view without a file or --live, with a missing file, or with both: one clear error line, exit 1', async () => {
  const none = await runCli(['view']);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /^agentpipe: error: give a saved stream .* or --live\n$/);
  const missing = await runCli(['view', path.join(tempDir(), 'nope.jsonl')]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /nope\.jsonl: no such file/);
  const both = await runCli(['view', 'x.jsonl', '--live']);
  assert.equal(both.code, 1);
  assert.match(both.stderr, /either a file or --live/);
  const badPort = await runCli(['view', 'x.jsonl', '--port', 'http']);
  assert.equal(badPort.code, 1);
  assert.match(badPort.stderr, /--port must be a whole number/);
  assert.equal(none.stdout + missing.stdout + both.stdout, '');
});

test('agentpipe -p loads no module of the viewer (src/view/, web/)', async () => {
  const dir = tempDir();
  // Sync module hooks (Node 24) record every module the source CLI resolves.
  const hook =
    `import module from 'node:module'; const seen = []; module.registerHooks({ resolve(s, c, next) { const r = ` +
    `next(s, c); seen.push(r.url); return r; } }); process.on('exit', () => process.stderr.write('LOADED ' + ` +
    `JSON.stringify(seen) + '\\n'));`;
  const child = spawn(
    process.execPath,
    [
      '--import',
      `data:text/javascript,${encodeURIComponent(hook)}`,
      path.join(ROOT, 'src/cli/entry.ts'),
      '-p',
      'hi',
      '--model',
      'scripted',
      '--no-session-persistence',
    ],
    { cwd: dir, env: { ...process.env, ANTHROPIC_API_KEY: '' } },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0, stderr);
  const loaded: string[] = JSON.parse(/LOADED (.*)/.exec(stderr)![1]);
  assert.ok(
    loaded.some((url) => url.includes('/src/cli/main.ts')),
    'the hook saw the CLI load',
  );
  assert.deepEqual(
    loaded.filter((url) => url.includes('/src/view/') || url.includes('/web/') || url.includes('playwright')),
    [],
  );
});
