/**
 * Web pages cannot drive agentpipe's servers: in headless Chromium, a page of another origin and
 * a page on a rebinding host name (evil.test resolving to 127.0.0.1) try to open a session on
 * `serve`, `serve --ui` and `view --live`, with and without the token, and fail; the `view`
 * page server refuses the rebinding host too. The servers' own pages keep working (test/view).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, test } from 'node:test';
import { haveBrowser, launch, startViewer, stopViewer } from '../view/browser.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { watchedCli } from '../transport/ws-helpers.ts';

/** An attacker's page server on another port: its pages try what the test asks. */
async function attackerSite(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>evil</title>'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    // The browser keeps its connection alive: end it, or close() waits for its idle timeout.
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What a WebSocket opened by the page sees first. */
const TRY_SOCKET = (url: string) =>
  new Promise<string>((resolve) => {
    const ws = new WebSocket(url);
    ws.onopen = () => resolve('open');
    ws.onerror = () => resolve('error');
    ws.onclose = () => resolve('closed');
    setTimeout(() => resolve('timeout'), 5000);
  });

const dir = tempDir();
const script = writeScript(dir, [{ text: 'should never run' }]);

interface Server {
  label: string;
  args: string[];
}
const SERVERS: Server[] = [
  { label: 'serve', args: ['serve', '--port', '0'] },
  { label: 'serve --ui', args: ['serve', '--ui', '--port', '0'] },
  { label: 'view --live', args: ['view', '--live', '--port', '0'] },
];

/** Starts a server; resolves with its port and the token in its printed URL. */
async function start(
  args: string[],
): Promise<{ port: number; token: string | null; stderr: () => string; stop(): Promise<unknown> }> {
  const cli = watchedCli([...args, '--model', 'scripted', '--script', script, '--cwd', dir]);
  after(() => cli.child.kill('SIGKILL'));
  const [, url] = await cli.waitFor(/listening on (ws:\/\/\S+)/);
  const parsed = new URL(url!);
  return {
    port: Number(parsed.port),
    token: parsed.searchParams.get('token'),
    stderr: cli.stderr,
    stop: async () => {
      cli.child.kill('SIGTERM');
      await cli.exited;
    },
  };
}

test('a page of another origin, and a page on a rebinding host name, cannot open a session', async (t) => {
  if (!haveBrowser(t)) return;
  const { browser, close } = await launch(['--host-resolver-rules=MAP evil.test 127.0.0.1']);
  const evil = await attackerSite();
  try {
    for (const server of SERVERS) {
      for (const tokenMode of ['token', 'no-token'] as const) {
        if (tokenMode === 'no-token' && server.label === 'view --live') continue;
        const s = await start(tokenMode === 'no-token' ? [...server.args, '--no-token'] : server.args);
        const what = `${server.label} (${tokenMode})`;
        assert.equal(s.token !== null, tokenMode === 'token', `${what}: a generated token is printed in the URL`);
        const withToken = s.token ? `?token=${s.token}` : '';
        const page = await browser.newPage();
        await page.goto(`${evil.origin}/`);
        // Another origin: refused by Origin even when it somehow knows the token.
        for (const url of [
          `ws://127.0.0.1:${s.port}/`,
          `ws://127.0.0.1:${s.port}/${withToken}`,
          `ws://localhost:${s.port}/${withToken}`,
        ]) {
          assert.notEqual(await page.evaluate(TRY_SOCKET, url), 'open', `${what}: ${evil.origin} opened ${url}`);
        }
        // DNS rebinding: evil.test resolves to the server, so the page is "same origin" with it; Host gives it away.
        const response = await page.goto(`http://evil.test:${s.port}/${withToken}`);
        assert.equal(response?.status(), 421, `${what}: the page on evil.test was served`);
        assert.notEqual(
          await page.evaluate(TRY_SOCKET, `ws://evil.test:${s.port}/${withToken}`),
          'open',
          `${what}: a socket from evil.test opened`,
        );
        await page.close();
        assert.doesNotMatch(s.stderr(), /: session [0-9a-f-]{36}/, `${what}: a session started`);
        assert.match(s.stderr(), /refused/, `${what}: the refusals are logged`);
        await s.stop();
      }
    }
  } finally {
    await evil.close();
    await close();
  }
});

test('the view page server answers only requests that name it', async (t) => {
  if (!haveBrowser(t)) return;
  const transcript = `${dir}/t.jsonl`;
  await import('node:fs/promises').then((fs) =>
    fs.writeFile(
      transcript,
      JSON.stringify({
        type: 'user',
        message: { role: 'user', content: 'secret prompt' },
        session_id: 's',
        uuid: 'u',
      }) + '\n',
    ),
  );
  const viewer = await startViewer(['view', transcript, '--port', '0']);
  const { browser, close } = await launch(['--host-resolver-rules=MAP evil.test 127.0.0.1']);
  try {
    const port = new URL(viewer.url).port;
    const page = await browser.newPage();
    assert.equal((await page.goto(`http://evil.test:${port}/`))?.status(), 421);
    assert.doesNotMatch(await page.content(), /secret prompt/);
    assert.equal((await page.goto(viewer.url))?.status(), 200, 'its own address still works');
  } finally {
    await close();
    await stopViewer(viewer.child);
  }
});
