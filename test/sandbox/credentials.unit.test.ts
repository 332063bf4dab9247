/**
 * `sandbox.credentials` without processes: which variables become credentials (and the warning for
 * each one that does not), the placeholders filled in a request's headers (a Basic credential
 * decoded first) only for the credentials given, the values replaced back in a response stream
 * even when one is split across chunks, and a repository's settings never listing one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import {
  credentialsFor,
  fillIn,
  fillInHeaders,
  resolveCredentials,
  scrubber,
  scrubHeaders,
  scrubText,
  swapsFor,
  type Credential,
} from '../../src/sandbox/credentials.ts';
import type { CredentialEntry } from '../../src/sandbox/config.ts';
import { resolvePolicy } from '../../src/sandbox/settings.ts';
import { parseBlock } from '../../src/sandbox/settings-schema.ts';

const SECRET = 'ghp_realsecretvalue0123456789';
const OTHER = 'sk-other-secret-value-42';

const mask = (name: string, more: Record<string, unknown> = {}) => [name, { name, mode: 'mask', ...more }] as const;

function resolve(entries: ReadonlyArray<readonly [string, CredentialEntry]>, env: Record<string, string>) {
  const warnings: string[] = [];
  const set = resolveCredentials(new Map(entries), env, ['api.github.com'], (line) => warnings.push(line));
  return { ...set, list: set.credentials, warnings };
}

test('envVars: deny unsets, mask puts placeholders (whole or extract spans); what cannot be masked is unset, said once', () => {
  const DB = `postgres://app:${OTHER}@db.internal:5432/app`;
  const set = resolve(
    [
      mask('GITHUB_TOKEN', { injectHosts: ['api.github.com', '*.githubusercontent.com'] }),
      mask('DATABASE_URL', { extract: '://[^:/]+:([^@]+)@' }),
      ['NOPE', { name: 'NOPE', mode: 'deny' }],
      mask('UNSET'),
      mask('SHORT'),
      mask('NEWLINE'),
      mask('JWT', { decode: 'jwt' }),
      mask('MISS', { extract: 'secret=(\\w+)' }),
      mask('MISS_DENY', { extract: 'secret=(\\w+)', onExtractNoMatch: 'deny' }),
      mask('BAD_RE', { extract: '(' }),
    ],
    {
      GITHUB_TOKEN: SECRET,
      DATABASE_URL: DB,
      NOPE: SECRET,
      SHORT: 'abc',
      NEWLINE: 'abcdefgh\r\nX-Evil: 1',
      JWT: SECRET,
      MISS: 'no match here',
      MISS_DENY: 'no match here',
      BAD_RE: SECRET,
    },
  );
  assert.deepEqual(
    set.list.map((c) => [c.name, c.value]),
    [
      ['GITHUB_TOKEN', SECRET],
      ['DATABASE_URL', OTHER],
    ],
  );
  const [token, db] = set.list as [Credential, Credential];
  assert.match(token.placeholder, /^agentpipe_credential_GITHUB_TOKEN_[0-9a-f]{32}$/);
  assert.deepEqual(set.env, {
    GITHUB_TOKEN: token.placeholder,
    DATABASE_URL: `postgres://app:${db.placeholder}@db.internal:5432/app`,
    MISS: 'no match here',
  });
  assert.deepEqual(set.names.length, 10, 'every listed variable is withheld as it is');
  assert.deepEqual(
    db.hosts.map((h) => h.text),
    ['api.github.com'],
    'without injectHosts: the allowed domains',
  );
  const text = set.warnings.join('\n');
  assert.equal(set.warnings.length, 6, text);
  assert.match(text, /SHORT: a secret shorter than 8 characters/);
  assert.match(text, /NEWLINE: a secret shorter than 8 characters or with a control character/);
  assert.match(text, /JWT: decode is not supported by agentpipe; the variable is unset inside \(deny\)/);
  assert.match(text, /MISS: extract found nothing; passed on as it is \(onExtractNoMatch: warn\)/);
  assert.match(text, /MISS_DENY: extract found nothing; unset inside/);
  assert.match(text, /BAD_RE: extract is not a valid regular expression/);
  for (const line of set.warnings) assert.ok(!line.includes(SECRET) && !line.includes(OTHER), 'no value in a warning');
  assert.throws(
    () => resolve([mask('E', { extract: 'x=(\\w+)', onExtractNoMatch: 'error' })], { E: 'nothing' }),
    /E: extract found nothing \(onExtractNoMatch: error\)/,
  );
  const again = resolve([mask('GITHUB_TOKEN')], { GITHUB_TOKEN: SECRET }).list[0]!;
  assert.notEqual(again.placeholder, token.placeholder, 'a placeholder is random per session');
});

test('the hosts of a credential: exact names, subdomains of a wildcard, a port when given', () => {
  const { list } = resolve(
    [
      mask('A', { injectHosts: ['api.github.com', '*.githubusercontent.com'] }),
      mask('B', { injectHosts: ['127.0.0.1:8443'] }),
    ],
    { A: SECRET, B: OTHER },
  );
  const names = (host: string, port: number) => credentialsFor(list, host, port).map((c) => c.name);
  assert.deepEqual(names('api.github.com', 443), ['A']);
  assert.deepEqual(names('raw.githubusercontent.com', 443), ['A']);
  assert.deepEqual(names('githubusercontent.com', 443), []);
  assert.deepEqual(names('github.com', 443), []);
  assert.deepEqual(names('api.github.com.evil.example', 443), []);
  assert.deepEqual(names('127.0.0.1', 8443), ['B']);
  assert.deepEqual(names('127.0.0.1', 443), []);
});

test('placeholders are filled in header values, a Basic credential and a target; only those of the credentials given', () => {
  const { list } = resolve([mask('A'), mask('B')], { A: SECRET, B: OTHER });
  const [a, b] = list as [Credential, Credential];
  const basic = Buffer.from(`x-access-token:${a.placeholder}`).toString('base64');
  const raw = [
    'Authorization',
    `Basic ${basic}`,
    'X-Api-Key',
    `${a.placeholder}`,
    'X-Other',
    `Bearer ${b.placeholder}`,
    'Accept',
    '*/*',
  ];
  const filled = fillInHeaders(raw, [a]);
  assert.equal(filled.changed, true);
  assert.equal(Buffer.from(filled.headers[1]!.slice(6), 'base64').toString(), `x-access-token:${SECRET}`);
  assert.equal(filled.headers[3], SECRET);
  assert.equal(filled.headers[5], `Bearer ${b.placeholder}`, "B's placeholder stays: B is not for this host");
  assert.equal(fillInHeaders(['Accept', '*/*'], [a]).changed, false);
  assert.equal(fillIn(`/v1?key=${a.placeholder}&b=${b.placeholder}`, [a]), `/v1?key=${SECRET}&b=${b.placeholder}`);
  const swaps = swapsFor([a], filled.swaps);
  assert.deepEqual(scrubHeaders(['X-Echo', `got ${SECRET}`, 'X-Basic', filled.headers[1]!], swaps), [
    'X-Echo',
    `got ${a.placeholder}`,
    'X-Basic',
    `Basic ${basic}`,
  ]);
});

test('a response stream has every value replaced by its placeholder, also split across chunks', async () => {
  const { list } = resolve([mask('A'), mask('B')], { A: SECRET, B: OTHER });
  const body = `start ${SECRET} middle ${OTHER}${SECRET} end ${SECRET.slice(0, 5)}`;
  for (const size of [1, 2, 3, 7, 1000]) {
    const chunks: Buffer[] = [];
    for (let i = 0; i < body.length; i += size) chunks.push(Buffer.from(body.slice(i, i + size)));
    const out = await text(Readable.from(chunks).pipe(scrubber(swapsFor(list))));
    const [a, b] = [list[0]!.placeholder, list[1]!.placeholder];
    assert.equal(out, `start ${a} middle ${b}${a} end ${SECRET.slice(0, 5)}`, `chunks of ${size}`);
  }
});

test("credentials merge over layers: a deny wins; files are hidden; the repository's mask is a deny, its plaintext injection ignored", () => {
  const warnings: string[] = [];
  const layer = (source: 'userSettings' | 'flagSettings' | 'projectSettings', credentials: unknown) => ({
    source,
    label: `${source}.json`,
    block: { credentials },
  });
  const policy = resolvePolicy(
    {
      warn: (line) => warnings.push(line),
      layers: [
        layer('userSettings', {
          envVars: [
            { name: 'A', mode: 'deny' },
            { name: 'B', mode: 'mask', injectHosts: ['b.example'] },
          ],
          files: [{ path: '~/.netrc', mode: 'mask' }],
        }),
        layer('projectSettings', {
          envVars: [
            { name: 'A', mode: 'mask' },
            { name: 'C', mode: 'mask' },
          ],
          files: [{ path: './secrets.json', mode: 'deny' }],
          allowPlaintextInject: true,
        }),
        layer('flagSettings', { envVars: [{ name: 'B', mode: 'mask', injectHosts: ['c.example'] }] }),
      ],
    },
    parseBlock,
  );
  assert.deepEqual(
    [...policy.credentialVars].map(([name, entry]) => [name, entry.mode, entry.injectHosts]),
    [
      ['A', 'deny', undefined],
      ['B', 'mask', ['c.example']],
      ['C', 'deny', undefined],
    ],
  );
  assert.equal(policy.allowPlaintextInject, false);
  assert.deepEqual(policy.denyRead, ['~/.netrc', './secrets.json']);
  const text = warnings.join('\n');
  assert.match(text, /files: mask is not supported yet; ~\/\.netrc is hidden instead \(deny\)/);
  assert.match(text, /ignored: projectSettings\.json \(credentials\.allowPlaintextInject\)/);
  assert.match(
    text,
    /projectSettings\.json: sandbox\.credentials\.envVars C: mask from the repository is applied as deny/,
  );
  assert.throws(
    () => parseBlock(layer('userSettings', { envVars: [{ name: 'A', mode: 'hide' }] })),
    /userSettings\.json: sandbox: .*credentials/,
  );
});

test('the scrubber holds back only an end that could still begin a value: a tunnel message goes on at once', async () => {
  const { list } = resolve([mask('A')], { A: SECRET });
  const stream = scrubber(swapsFor(list));
  const got: string[] = [];
  stream.on('data', (chunk: Buffer) => got.push(chunk.toString()));
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  stream.write('hello');
  await settle();
  assert.deepEqual(got, ['hello']);
  stream.write('ping'); // its g could begin the value (ghp_…): held until the next bytes say otherwise
  await settle();
  assert.deepEqual(got, ['hello', 'pin']);
  stream.write(`x${SECRET.slice(0, 5)}`);
  await settle();
  assert.deepEqual(got, ['hello', 'pin', 'gx'], 'the start of the value waits');
  stream.write(`${SECRET.slice(5)}!`);
  await settle();
  assert.deepEqual(got, ['hello', 'pin', 'gx', `${list[0]!.placeholder}!`]);
});

test('a value echoed as other encoders escape it is replaced too: lowercase %-hex, PHP\'s "\\/", Go\'s "\\u003c"', () => {
  const value = 'wJalrXUtnFEMI/K7MDENG/bPx<Rfi>CY&EXAMPLEKEY';
  const { list } = resolve([mask('A')], { A: value });
  const swaps = swapsFor(list);
  const placeholder = list[0]!.placeholder;
  const echoes = [
    encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    JSON.stringify(value).slice(1, -1).replaceAll('/', '\\/'),
    JSON.stringify(value)
      .slice(1, -1)
      .replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`),
  ];
  for (const echo of echoes) assert.equal(scrubText(`{"got":"${echo}"}`, swaps), `{"got":"${placeholder}"}`, echo);
});

void test.todo(
  'an inject host that echoes the value transformed (base64, hex, reversed, cut in two, HTML entities) hands it ' +
    'back: the response is scrubbed only of the value and its usual escapes; a host listed in injectHosts must not ' +
    'reflect request headers (say so in docs/security.md)',
);
