/**
 * Server tokens (issue 27): `view FILE` on a host that is not loopback served a transcript to
 * anyone; now it needs a token as `serve` does. A token can come from `--token-file` (or
 * AGENTPIPE_SERVE_TOKEN) so that it is not in the process's command line, which every user can
 * read (`ps`, /proc/<pid>/cmdline).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';
import { watchedCli } from '../transport/ws-helpers.ts';

/** A saved stream-json session to view. */
function savedStream(dir: string): string {
  const file = path.join(dir, 'saved.jsonl');
  const session_id = '11111111-1111-4111-8111-111111111111';
  writeFileSync(
    file,
    [
      { type: 'system', subtype: 'init', session_id, cwd: dir, tools: [], model: 'scripted' },
      { type: 'result', subtype: 'success', is_error: false, result: 'the secret plan', session_id },
    ]
      .map((m) => JSON.stringify(m))
      .join('\n') + '\n',
  );
  return file;
}

/** GET `/` of a server on `port` (through loopback, as a client on the network would name the address). */
async function page(port: number, query = ''): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/${query}`);
  await response.arrayBuffer();
  return response.status;
}

test('view FILE --host 0.0.0.0: the page needs the token printed in its URL; its assets do not', async (t) => {
  const dir = tempDir();
  const cli = watchedCli(['view', savedStream(dir), '--host', '0.0.0.0']);
  t.after(() => cli.child.kill('SIGTERM'));
  const [, port, token] = await cli.waitFor(/on http:\/\/0\.0\.0\.0:(\d+)\/\?token=([\w-]+) /);
  assert.equal(await page(Number(port)), 401);
  assert.equal(await page(Number(port), '?token=wrong'), 401);
  assert.equal(await page(Number(port), `?token=${token}`), 200);
  const html = await (await fetch(`http://127.0.0.1:${port}/?token=${token}`)).text();
  assert.ok(html.includes('the secret plan'), 'the page carries the session');
  const asset = /\/assets\/[\w.-]+\.js/.exec(html)![0];
  assert.equal((await fetch(`http://127.0.0.1:${port}${asset}`)).status, 200);
});

test('view FILE on loopback needs no token; --no-token past loopback is refused', async (t) => {
  const dir = tempDir();
  const cli = watchedCli(['view', savedStream(dir)]);
  t.after(() => cli.child.kill('SIGTERM'));
  const [, port] = await cli.waitFor(/on http:\/\/127\.0\.0\.1:(\d+)\/ /);
  assert.equal(await page(Number(port)), 200);
  const refused = await runCli(['view', savedStream(dir), '--host', '0.0.0.0', '--no-token']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /refusing to serve on 0\.0\.0\.0 without a token/);
});

/** Resolves with the HTTP status of a refused upgrade, or 101 when the connection opened. */
function upgrade(url: string, token?: string): Promise<number> {
  const ws = new WebSocket(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  return new Promise((resolve) => {
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => undefined);
  });
}

test('serve --token-file: the token is read from the file and is in neither the command line nor the environment', async (t) => {
  const dir = tempDir();
  const file = path.join(dir, 'token');
  writeFileSync(file, 'file-token-123\n', { mode: 0o600 });
  const cli = watchedCli(['serve', '--port', '0', '--model', 'scripted', '--token-file', file]);
  t.after(() => cli.child.kill('SIGTERM'));
  const [, url] = await cli.waitFor(/listening on (ws:\/\/\S+) \(token required\)/);
  assert.equal(await upgrade(url!), 401);
  assert.equal(await upgrade(url!, 'file-token-123'), 101);
  const pid = cli.child.pid!;
  assert.doesNotMatch(readFileSync(`/proc/${pid}/cmdline`, 'utf8'), /file-token-123/);
  assert.doesNotMatch(readFileSync(`/proc/${pid}/environ`, 'utf8'), /file-token-123/);
  assert.doesNotMatch(cli.stderr(), /warning|note/);
});

test('serve: a token file others can read is warned about; an empty one, or two token sources, are usage errors', async (t) => {
  const dir = tempDir();
  const shared = path.join(dir, 'shared');
  writeFileSync(shared, 'shared-token\n', { mode: 0o644 });
  const cli = watchedCli(['serve', '--port', '0', '--model', 'scripted', '--token-file', shared]);
  t.after(() => cli.child.kill('SIGTERM'));
  await cli.waitFor(/listening on/);
  assert.match(cli.stderr(), /warning: --token-file .*shared can be read by other users; make it private/);

  const empty = path.join(dir, 'empty');
  writeFileSync(empty, '\n');
  const none = await runCli(['serve', '--port', '0', '--token-file', empty]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /--token-file .*empty: the file holds no token/);
  const both = await runCli(['serve', '--port', '0', '--token', 'a', '--token-file', shared]);
  assert.equal(both.code, 1);
  assert.match(both.stderr, /--token or --token-file, not both/);
  const missing = await runCli(['view', '--live', '--token-file', path.join(dir, 'nope')]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /--token-file .*nope: ENOENT/);
});

test('serve --token on the command line works and says it is visible to other users', async (t) => {
  const cli = watchedCli(['serve', '--port', '0', '--model', 'scripted', '--token', 'argv-token']);
  t.after(() => cli.child.kill('SIGTERM'));
  const [, url] = await cli.waitFor(/listening on (ws:\/\/\S+)/);
  assert.equal(await upgrade(url!, 'argv-token'), 101);
  assert.match(cli.stderr(), /note: a --token on the command line is visible to every user of this machine/);
});
