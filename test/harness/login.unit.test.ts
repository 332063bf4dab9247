/** missingLogin: a wrapped CLI with no key and no login of its own is one line with the fix, before it starts. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { HARNESS_CLIS, missingLogin } from '../../src/harness/index.ts';
import { scratchDir } from '../helpers/temp.ts';

const NAMES = ['claude', 'codex', 'gemini', 'qwen'] as const;

function place() {
  const home = scratchDir('login-home-');
  const cwd = scratchDir('login-cwd-');
  return { home, cwd, env: { HOME: home, PATH: '/usr/bin' } as Record<string, string> };
}

test('no key and no login: one line naming the variable, --api-key and the CLI’s own login', () => {
  if (process.platform === 'darwin') return; // Claude's login may be in the keychain there: not checked
  const { cwd, env } = place();
  const lines = NAMES.map((name) => missingLogin(name, HARNESS_CLIS[name].keys, env, cwd));
  assert.deepEqual(lines, [
    '--harness claude has no key: set ANTHROPIC_API_KEY or give --api-key, or log in once by running claude',
    '--harness codex has no key: set CODEX_API_KEY (or OPENAI_API_KEY) or give --api-key, ' +
      'or log in once with codex login',
    '--harness gemini has no key: set GEMINI_API_KEY or give --api-key, or log in once by running gemini',
    '--harness qwen has no key: set OPENAI_API_KEY (any value for a local server that takes none) ' +
      'or give --api-key, or log in once by running qwen',
  ]);
  assert.equal(missingLogin('acp', [], env, cwd), undefined, 'an ACP agent logs in its own way');
});

test('any key variable of the CLI is enough (an empty one is not)', () => {
  const { cwd, env } = place();
  for (const name of NAMES) {
    for (const key of HARNESS_CLIS[name].keys)
      assert.equal(missingLogin(name, HARNESS_CLIS[name].keys, { ...env, [key]: 'k' }, cwd), undefined, key);
    const [first] = HARNESS_CLIS[name].keys;
    assert.ok(missingLogin(name, HARNESS_CLIS[name].keys, { ...env, [first!]: '' }, cwd), `${name}: empty key`);
  }
});

test('a login of the CLI’s own counts: its credentials file, its cloud variables, its settings, a .env', () => {
  const cases: Array<[(typeof NAMES)[number], (p: ReturnType<typeof place>) => void]> = [
    ['claude', ({ home }) => write(path.join(home, '.claude', '.credentials.json'), '{}')],
    ['claude', ({ env }) => (env.CLAUDE_CODE_USE_BEDROCK = '1')],
    ['codex', ({ home }) => write(path.join(home, '.codex', 'auth.json'), '{}')],
    ['codex', ({ env }) => write(path.join((env.CODEX_HOME = scratchDir('codex-home-')), 'auth.json'), '{}')],
    ['gemini', ({ home }) => write(path.join(home, '.gemini', 'oauth_creds.json'), '{}')],
    ['gemini', ({ env }) => (env.GOOGLE_GENAI_USE_VERTEXAI = 'true')],
    [
      'gemini',
      ({ home }) =>
        write(
          path.join(home, '.gemini', 'settings.json'),
          '{"security":{"auth":{"selectedType":"compute-default-credentials"}}}',
        ),
    ],
    ['gemini', ({ cwd }) => write(path.join(cwd, '.env'), 'GEMINI_API_KEY=k\n')],
    ['qwen', ({ home }) => write(path.join(home, '.qwen', 'oauth_creds.json'), '{}')],
    [
      'qwen',
      ({ home }) => write(path.join(home, '.qwen', 'settings.json'), '{"security":{"auth":{"selectedType":"openai"}}}'),
    ],
  ];
  for (const [name, login] of cases) {
    const p = place();
    login(p);
    assert.equal(missingLogin(name, HARNESS_CLIS[name].keys, p.env, p.cwd), undefined, `${name}: ${login.toString()}`);
  }
  // A settings file that chooses nothing is not a login.
  const p = place();
  write(path.join(p.home, '.gemini', 'settings.json'), '{"general":{"maxAttempts":1}}');
  assert.ok(missingLogin('gemini', HARNESS_CLIS.gemini.keys, p.env, p.cwd));
});

function write(file: string, text: string) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}
