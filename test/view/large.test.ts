/** 10,000+ messages: the page renders quickly (virtualized list) and scrolls to the end. */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/workspace.ts';
import { haveBrowser, launch, screenshotPath, startViewer, stopViewer } from './browser.ts';

const SESSION = '11111111-2222-4333-8444-555555555555';
const env = { session_id: SESSION, parent_tool_use_id: null };
const usage = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

/** A long stream-json session: 3,400 steps of text + tool call + tool result, a result every 100 steps. */
function longStream(steps: number): string {
  const lines: unknown[] = [
    {
      type: 'system',
      subtype: 'init',
      cwd: '/work',
      tools: ['Bash'],
      model: 'scripted',
      permissionMode: 'default',
      mcp_servers: [],
      apiKeySource: 'none',
      uuid: 'init',
      ...env,
    },
  ];
  for (let i = 0; i < steps; i++) {
    if (i % 100 === 0)
      lines.push({ type: 'user', message: { role: 'user', content: `Prompt ${i / 100 + 1}` }, uuid: `p${i}`, ...env });
    const msg = `msg_${i}`;
    lines.push({
      type: 'assistant',
      message: {
        id: msg,
        type: 'message',
        role: 'assistant',
        model: 'scripted',
        content: [{ type: 'text', text: `Step **${i}**: running command ${i}.` }],
        stop_reason: null,
        stop_sequence: null,
        usage,
      },
      uuid: `a${i}`,
      ...env,
    });
    lines.push({
      type: 'assistant',
      message: {
        id: msg,
        type: 'message',
        role: 'assistant',
        model: 'scripted',
        content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Bash', input: { command: `echo ${i}` } }],
        stop_reason: null,
        stop_sequence: null,
        usage,
      },
      uuid: `b${i}`,
      ...env,
    });
    lines.push({
      type: 'user',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: String(i), is_error: i % 97 === 0 }],
      },
      tool_use_result: {
        stdout: String(i),
        stderr: '',
        interrupted: false,
        isImage: false,
        exitCode: i % 97 === 0 ? 1 : 0,
      },
      uuid: `r${i}`,
      ...env,
    });
    if (i % 100 === 99)
      lines.push({
        type: 'result',
        subtype: 'success',
        is_error: false,
        duration_ms: 1000,
        duration_api_ms: 900,
        num_turns: 100,
        result: 'ok',
        total_cost_usd: 0.01,
        usage,
        modelUsage: {},
        permission_denials: [],
        uuid: `res${i}`,
        ...env,
      });
  }
  return lines.map((l) => JSON.stringify(l)).join('\n');
}

let browser: Awaited<ReturnType<typeof launch>> | undefined;
let viewer: Awaited<ReturnType<typeof startViewer>> | undefined;
after(async () => {
  await browser?.close();
  if (viewer) await stopViewer(viewer.child);
});

test('10,000 messages load in a few seconds, keep the DOM small and scroll to the end', async (t) => {
  if (!haveBrowser(t)) return;
  const file = path.join(tempDir(), 'long.jsonl');
  const text = longStream(3400);
  assert.ok(text.split('\n').length >= 10_000);
  writeFileSync(file, text);
  viewer = await startViewer(['view', file]);
  browser = await launch();
  const page = await browser.browser.newPage();
  const started = Date.now();
  await page.goto(viewer.url);
  await page.getByTestId('tool-card').first().waitFor();
  const elapsed = Date.now() - started;
  assert.ok(elapsed < 5000, `rendered in ${elapsed} ms`);
  const rows = await page.locator('.virtual-row').count();
  assert.ok(rows > 3 && rows < 80, `${rows} rows in the DOM, not thousands`);
  assert.equal(await page.getByTestId('turns').textContent(), '3,400');

  await page.keyboard.press('End');
  await page.locator('[data-tool-id="toolu_3399"]').waitFor({ timeout: 5000 });
  const responsive = Date.now();
  await page.getByTestId('scroller').evaluate((el) => el.scrollBy(0, -3000));
  await page.getByTestId('tool-card').first().waitFor();
  assert.ok(Date.now() - responsive < 2000);
  await page.getByTestId('search').fill('command 1234.');
  await page.getByTestId('search-count').waitFor();
  assert.equal(await page.getByTestId('search-count').textContent(), '1 match');
  await page.screenshot({ path: screenshotPath('large-search.png') });
});
