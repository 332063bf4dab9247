/** `agentpipe view --live` and `serve --ui`: prompts from the page, streamed output, Stop → interrupt. */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { haveBrowser, launch, screenshotPath, startViewer, stopViewer } from './browser.ts';

const STORY = 'Streaming works: this answer arrives in small pieces, one after another, so the page shows it growing. '
  .repeat(3)
  .trim();
const SLOW = 'This turn takes a long time to say anything useful, word by word by word. '.repeat(20);

let browser: Awaited<ReturnType<typeof launch>> | undefined;
const viewers: Array<Awaited<ReturnType<typeof startViewer>>> = [];
after(async () => {
  await browser?.close();
  for (const v of viewers) await stopViewer(v.child);
});

test('a prompt from the page starts a scripted session that streams; Stop interrupts the next one', async (t) => {
  if (!haveBrowser(t)) return;
  const dir = tempDir({ 'a.txt': 'alpha\n' });
  const script = writeScript(dir, [
    {
      thinking: 'Looking first.',
      text: 'Let me check.',
      tool_calls: [{ name: 'Bash', id: 'toolu_ls', input: { command: 'ls' } }],
      usage: { input_tokens: 100, output_tokens: 10 },
    },
    { text: STORY, delay_ms: 25, chunk_size: 6, usage: { input_tokens: 200, output_tokens: 40 } },
    { text: SLOW, delay_ms: 150, chunk_size: 4 },
  ]);
  const viewer = await startViewer(['view', '--live', '--model', 'scripted', '--script', script, '--cwd', dir]);
  viewers.push(viewer);
  browser = await launch();
  const page = await browser.browser.newPage();
  await page.goto(viewer.url);
  assert.equal(await page.getByTestId('connection').textContent(), 'no session');

  await page.getByTestId('prompt-input').fill('What is here?');
  await page.getByTestId('send').click();
  await page.getByTestId('user-message').filter({ hasText: 'What is here?' }).waitFor();
  const answer = page.getByTestId('assistant-text').filter({ hasText: 'Streaming works' });
  await answer.waitFor();
  assert.equal(await page.getByTestId('user-message').count(), 1, 'the prompt shows once, from its echo on the stream');
  const partial = (await answer.textContent())!.trim();
  assert.ok(partial.length < STORY.length, `seen while streaming (${partial.length} of ${STORY.length} characters)`);
  assert.ok(await page.getByTestId('running').isVisible(), 'the header shows the session running');
  await page.screenshot({ path: screenshotPath('live-streaming.png') });
  await page.getByTestId('turns').filter({ hasText: /^2$/ }).waitFor();
  assert.equal((await answer.textContent())!.trim(), STORY);
  assert.equal(await page.locator('[data-tool-id="toolu_ls"]').getAttribute('data-status'), 'completed');
  assert.match((await page.locator('[data-tool-id="toolu_ls"]').getByTestId('terminal').textContent()) ?? '', /a\.txt/);
  assert.equal(await page.getByTestId('tokens-input').textContent(), '300');
  assert.match((await page.getByTestId('session-id').getAttribute('title')) ?? '', /^[0-9a-f-]{36}$/);
  assert.equal(await page.getByTestId('running').count(), 0);

  await page.getByTestId('prompt-input').fill('Now something slow');
  await page.getByTestId('prompt-input').press('Enter');
  await page.getByTestId('assistant-text').filter({ hasText: 'This turn takes' }).waitFor();
  await page.getByTestId('stop').click();
  const interrupted = page.getByTestId('notice').filter({ hasText: 'Interrupted' });
  await interrupted.waitFor({ timeout: 10_000 });
  assert.equal(await interrupted.getAttribute('data-level'), 'abort');
  await page.getByTestId('send').waitFor();
  const slow = (await page.getByTestId('assistant-text').filter({ hasText: 'This turn takes' }).textContent())!.trim();
  assert.ok(slow.length < SLOW.trim().length, 'the slow answer was cut off');
  await page.screenshot({ path: screenshotPath('live-interrupted.png') });

  await page.getByTestId('new-session').click();
  await page.getByText('Type a prompt below to start a session.').waitFor();
});

test('serve --ui serves the page next to the WebSocket endpoint; other origins cannot connect', async () => {
  const dir = tempDir();
  const viewer = await startViewer(['serve', '--ui', '--port', '0', '--model', 'scripted', '--cwd', dir]);
  viewers.push(viewer);
  const page = await fetch(viewer.url);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /"mode":"live"/);
  const asset = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)![1];
  assert.equal((await fetch(new URL(asset, viewer.url))).status, 200);
  assert.equal((await fetch(new URL('/assets/../package.json', viewer.url))).status, 404);
  const { default: WebSocket } = await import('ws');
  const refused = await new Promise<number>((resolve) => {
    const ws = new WebSocket(viewer.url.replace('http', 'ws'), { origin: 'https://evil.example' });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('open', () => resolve(101));
    ws.on('error', () => {});
  });
  assert.equal(refused, 403);
});
