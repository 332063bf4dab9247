/**
 * `agentpipe view --redis`: a live page of a cluster's sessions, on a private Redis with a real
 * worker. The data it serves (the session list, one session's log replayed then followed live),
 * its doors (token, Origin), and the page in headless Chromium: the list, a session opened, a
 * new prompt of that session shown as it streams.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { query, type QueryOptions } from '../../src/index.ts';
import { SessionLog } from '../../src/cluster/redis.ts';
import type { PromptMessage } from '../../src/sdk/types.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { startRedis } from '../cluster/redis-server.ts';
import { kill9, startWorker } from '../cluster/cluster.ts';
import { haveBrowser, launch, screenshotPath, startViewer, stopViewer } from './browser.ts';

const redis = await startRedis();
const worker = await startWorker(redis.url);
const viewer = await startViewer(['view', '--redis', redis.url]);
let browser: Awaited<ReturnType<typeof launch>> | undefined;
after(async () => {
  await browser?.close();
  await stopViewer(viewer.child);
  await kill9(worker);
});

const STORY = 'The answer streams in small pieces so the page shows it growing while it is written. '.repeat(4).trim();

type Message = Record<string, any>;

async function run(prompt: string | AsyncIterable<PromptMessage>, options: QueryOptions): Promise<Message[]> {
  const messages: Message[] = [];
  for await (const message of query({ prompt, options })) messages.push(message as Message);
  return messages;
}

/** One user message for a prompt stream. */
async function* once(text: string, until: Promise<void>): AsyncGenerator<PromptMessage> {
  yield { type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null };
  await until;
}

/** A WebSocket to the viewer that records every line it is sent. */
function feed(path: string, headers: Record<string, string> = {}) {
  const url = new URL(viewer.url);
  const target = `ws://${url.host}${path}${path.includes('?') ? '&' : '?'}${url.searchParams}`;
  const ws = new WebSocket(target, { headers });
  const lines: Message[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (data) => {
    for (const line of data.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Message);
    for (const wake of waiters) wake();
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  ws.on('error', () => undefined);
  return {
    ws,
    lines,
    closed,
    async until(check: () => boolean, what: string): Promise<void> {
      const deadline = Date.now() + 15_000;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got ${lines.map((l) => l.type)}`);
        await new Promise<void>((resolve) => {
          waiters.add(resolve);
          setTimeout(resolve, 200);
        });
        waiters.clear();
      }
    },
  };
}

/** The status of a WebSocket upgrade to the viewer. */
function upgradeStatus(target: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(target, { headers });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('error', () => resolve(-1));
  });
}

test('view --redis serves the list and each session (its log replayed, then live), behind the token and the origin check', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [
    { text: 'listing', tool_calls: [{ name: 'Bash', id: 'toolu_ls', input: { command: 'echo listed' } }] },
    { text: 'all listed' },
  ]);
  const options: QueryOptions = {
    model: 'scripted',
    script,
    cwd: dir,
    permissionMode: 'bypassPermissions',
    cluster: { redis: redis.url },
  };
  const first = await run('list it', options);
  const sessionId = first[0]!.session_id as string;

  // The doors: the page and the feeds need the token; another origin is refused even with it.
  const url = new URL(viewer.url);
  const bare = `http://${url.host}/`;
  assert.equal((await fetch(bare)).status, 401, 'the page without the token');
  const page = await fetch(viewer.url);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /"mode":"cluster"/);
  assert.equal(await upgradeStatus(`ws://${url.host}/sessions`), 401, 'the list without the token');
  assert.equal(
    await upgradeStatus(`ws://${url.host}/sessions?${url.searchParams}`, { Origin: 'https://evil.example' }),
    403,
    'another origin, with the token',
  );

  const list = feed('/sessions');
  await list.until(() => list.lines.some((l) => l.sessions?.some((s: Message) => s.id === sessionId)), 'the session');
  const summary = list.lines.at(-1)!.sessions.find((s: Message) => s.id === sessionId);
  assert.deepEqual(
    { title: summary.title, running: summary.running, model: summary.model, workers: list.lines.at(-1)!.workers },
    { title: 'list it', running: false, model: 'scripted', workers: 1 },
  );
  assert.ok(summary.messages >= first.length, `${summary.messages} messages`);

  // Watching: the log replayed (the prompt line first, then every message the query got, in order)...
  const watch = feed(`/watch?session=${sessionId}`);
  await watch.until(() => watch.lines.filter((l) => l.type === 'result').length === 1, 'the replayed result');
  const isPrompt = (l: Message) => l.type === 'user' && l.agentpipe_prompt === true;
  assert.deepEqual(
    watch.lines.filter(isPrompt).map((l) => l.message.content),
    ['list it'],
    'the prompt, from its transcript line',
  );
  assert.ok(
    watch.lines.every((l) => !String(l.type).startsWith('control_')),
    'no control lines',
  );
  assert.deepEqual(
    watch.lines.filter((l) => l.type !== 'keep_alive' && !isPrompt(l)).map((l) => l.uuid),
    first.map((m) => m.uuid),
    'every message the query got, in order',
  );
  // ...then what the session does next, live: a second prompt with its deltas.
  writeScript(dir, [{ text: 'second answer', chunk_size: 3 }]);
  const second = await run('and again', { ...options, resume: sessionId, includePartialMessages: true });
  await watch.until(() => watch.lines.filter((l) => l.type === 'result').length === 2, 'the live result');
  const live = watch.lines.slice(watch.lines.findIndex((l) => l.type === 'result') + 1);
  assert.deepEqual(
    live.filter(isPrompt).map((l) => l.message.content),
    ['and again'],
    'the new prompt',
  );
  const deltas = live.filter((l) => l.type === 'stream_event' && l.event.delta?.type === 'text_delta');
  assert.equal(deltas.map((d) => d.event.delta.text).join(''), 'second answer', 'the deltas, live');
  assert.deepEqual(
    live.filter((l) => !isPrompt(l) && l.type !== 'keep_alive').map((l) => l.uuid),
    second.map((m) => m.uuid),
    'the same messages as the query, deltas included, in the same order',
  );
  await list.until(
    () =>
      list.lines.at(-1)!.sessions.find((s: Message) => s.id === sessionId).title === 'list it' && list.lines.length > 1,
    'the list updated',
  );

  const unknown = feed('/watch?session=00000000-0000-4000-8000-000000000000');
  assert.equal(await unknown.closed, 1008);
  const other = feed('/');
  assert.equal(await other.closed, 1008, 'the viewer starts no sessions');
  // Deleted (or archived) meanwhile: the watch ends, and the page is told why.
  const log = new SessionLog({ redis: redis.url });
  await log.delete(sessionId);
  await log.close();
  assert.equal(await watch.closed, 1000);
  list.ws.close();
});

test('the page in Chromium: the list, a session opened and followed while a new prompt streams', async (t) => {
  if (!haveBrowser(t)) return;
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'Hello from a worker.' }]);
  const options: QueryOptions = { model: 'scripted', script, cwd: dir, cluster: { redis: redis.url } };
  const first = await run('say hello', options);
  const sessionId = first[0]!.session_id as string;

  browser = await launch();
  const page = await browser.browser.newPage();
  await page.goto(viewer.url);
  const row = page.locator(`[data-session-id="${sessionId}"]`);
  await row.waitFor();
  assert.match((await row.textContent()) ?? '', /say hello/);
  await row.click();
  await page.getByTestId('assistant-text').filter({ hasText: 'Hello from a worker.' }).waitFor();
  await page.getByTestId('user-message').filter({ hasText: 'say hello' }).waitFor();
  assert.equal(await page.getByTestId('watch-state').textContent(), 'live');

  // A new prompt of the session, slow: the page shows its answer while it is written.
  writeScript(dir, [{ text: STORY, delay_ms: 40, chunk_size: 6 }]);
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const second = (async () => {
    const messages: Message[] = [];
    for await (const message of query({
      prompt: once('tell a story', finished),
      options: { ...options, resume: sessionId, includePartialMessages: true },
    })) {
      messages.push(message as Message);
      if (message.type === 'result') finish();
    }
    return messages;
  })();
  const answer = page.getByTestId('assistant-text').filter({ hasText: 'The answer streams' });
  await answer.waitFor();
  const partial = (await answer.textContent())!.trim();
  assert.ok(partial.length < STORY.length, `seen while streaming (${partial.length} of ${STORY.length} characters)`);
  await page.screenshot({ path: screenshotPath('cluster-streaming.png') });
  await second;
  // The whole story, not its last words: the story repeats one sentence, so its tail shows early.
  await page.getByTestId('assistant-text').filter({ hasText: STORY }).waitFor();
  assert.equal((await answer.textContent())!.trim(), STORY, 'the whole answer once it is written');
  assert.equal(page.url().endsWith(`#session=${sessionId}`), true, 'the chosen session is in the URL');
});

test('serve --redis --ui: the same page through the front end, which also starts sessions on the workers', async (t) => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'Started from the page, answered by a worker.' }]);
  const front = await startViewer([
    'serve',
    '--redis',
    redis.url,
    '--port',
    '0',
    '--ui',
    '--model',
    'scripted',
    '--script',
    script,
    '--cwd',
    dir,
  ]);
  t.after(() => stopViewer(front.child));
  const url = new URL(front.url);
  assert.equal((await fetch(`http://${url.host}/`)).status, 401, 'the page needs the token');
  const html = await (await fetch(front.url)).text();
  assert.match(html, /"mode":"cluster"/);
  assert.match(html, /"canStart":true/);
  assert.equal(
    await upgradeStatus(`ws://${url.host}/sessions?${url.searchParams}`, { Origin: 'https://evil.example' }),
    403,
  );
  if (!haveBrowser(t)) return;
  browser ??= await launch();
  const page = await browser.browser.newPage();
  await page.goto(front.url);
  await page
    .getByTestId('cluster-status')
    .filter({ hasText: /sessions? · 1 worker/ })
    .waitFor();
  await page.getByTestId('cluster-new').click();
  await page.getByTestId('prompt-input').fill('hello cluster');
  await page.getByTestId('send').click();
  await page
    .getByTestId('assistant-text')
    .filter({ hasText: 'Started from the page, answered by a worker.' })
    .waitFor();
  const row = page.getByTestId('cluster-session').filter({ hasText: 'hello cluster' });
  await row.waitFor();
  await page.screenshot({ path: screenshotPath('cluster-serve-ui.png') });
  // Opened from the list, the same session is watched from its log.
  await row.click();
  await page.getByTestId('watch-state').filter({ hasText: 'live' }).waitFor();
  await page
    .getByTestId('assistant-text')
    .filter({ hasText: 'Started from the page, answered by a worker.' })
    .waitFor();
  await page.getByTestId('user-message').filter({ hasText: 'hello cluster' }).waitFor();
});

test('view --redis with Redis unreachable: one clear line, exit 1', async () => {
  const { freePort } = await import('../cluster/redis-server.ts');
  const { runCli } = await import('../helpers/cli.ts');
  const run = await runCli(['view', '--redis', `redis://127.0.0.1:${await freePort()}`], { timeoutMs: 15_000 });
  assert.equal(run.code, 1, run.stderr);
  assert.match(
    run.stderr,
    /^agentpipe view: error: cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+: connection refused/,
  );
  assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
  assert.equal(run.stdout, '', 'no URL');
});
