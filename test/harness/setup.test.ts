/**
 * Harnesses set themselves up, through the real CLI: Gemini CLI on a `--base-url` with only its key
 * variable (no settings file: agentpipe gives it the key's auth), and a wrapped CLI with no key is
 * agentpipe's own one line, before the CLI starts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli } from '../helpers/cli.ts';
import { scratchDir, scratchDirOutsideTemp } from '../helpers/temp.ts';
import { testPath } from './helpers.ts';
import { startFakeGemini } from './fakes/gemini-api.ts';

test('--harness gemini --base-url with GEMINI_API_KEY alone answers: no settings file to write first', async () => {
  const fake = await startFakeGemini([{ kind: 'text', chunks: ['Hello ', 'from Gemini.'] }]);
  // Gemini reads the auth default only from a folder no one else may write: a home outside the temp folder (under the
  // user's own home when the checkout itself is under a world-writable folder: a CI clone in /tmp).
  const home = scratchDirOutsideTemp('gemini-setup-');
  mkdirSync(path.join(home, 'tmp'));
  const cwd = scratchDir('gemini-setup-work-');
  try {
    const run = await runCli(
      [
        '-p',
        'hi',
        '--harness',
        'gemini',
        '--base-url',
        fake.url,
        '--model',
        'gemini-2.5-flash',
        '--output-format',
        'json',
      ],
      {
        cwd,
        env: {
          PATH: testPath(),
          HOME: home,
          TMPDIR: path.join(home, 'tmp'),
          GEMINI_API_KEY: 'fake-key',
          GEMINI_CLI_TRUST_WORKSPACE: 'true',
        },
        timeoutMs: 90_000,
      },
    );
    assert.equal(run.code, 0, run.stderr);
    const [result] = parseLines(run.stdout);
    assert.equal(result!.result, 'Hello from Gemini.');
    assert.equal(fake.requests.length, 1);
    assert.ok(!existsSync(path.join(home, '.gemini', 'settings.json')), "the user's own settings are left alone");
  } finally {
    await fake.close();
  }
});

test('a wrapped CLI with no key: one line with the fix, exit 1, the CLI never started', async () => {
  const home = scratchDir('harness-nokey-');
  const run = await runCli(['-p', 'hi', '--harness', 'gemini', '--output-format', 'stream-json', '--verbose'], {
    cwd: scratchDir('harness-nokey-work-'),
    env: { PATH: testPath(), HOME: home, GEMINI_API_KEY: '', GOOGLE_API_KEY: '' },
  });
  assert.equal(run.code, 1);
  assert.equal(
    run.stderr,
    'agentpipe: error: --harness gemini has no key: set GEMINI_API_KEY or give --api-key, ' +
      'or log in once by running gemini\n',
  );
  assert.ok(!existsSync(path.join(home, '.gemini')), 'gemini did not run');
});
