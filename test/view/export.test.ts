/**
 * `--export report.html`: one file that opens with every request blocked; other saved streams (stdout, Claude Code's).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';
import { haveBrowser, launch, screenshotPath, startViewer, stopViewer } from './browser.ts';
import { recordSession } from './fixture.ts';

let browser: Awaited<ReturnType<typeof launch>> | undefined;
after(async () => browser?.close());

test('the exported HTML is self-contained and shows the conversation offline', async (t) => {
  const session = await recordSession();
  const out = path.join(tempDir(), 'report.html');
  const run = await runCli(['view', session.transcript, '--export', out]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /wrote .*report\.html \(\d+ messages\)/);
  const html = readFileSync(out, 'utf8');
  assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href=/, 'no external script or stylesheet');
  assert.match(html, /Content-Security-Policy/);
  if (!haveBrowser(t)) return;
  browser = await launch();
  const page = await browser.browser.newPage();
  const requests: string[] = [];
  await page.route('**/*', (route) => {
    requests.push(route.request().url());
    return route.request().url() === pathToFileURL(out).href ? route.continue() : route.abort();
  });
  await page.goto(pathToFileURL(out).href);
  await page.getByTestId('user-message').first().waitFor();
  assert.deepEqual(requests, [pathToFileURL(out).href], 'nothing but the file itself was requested');
  assert.match((await page.getByTestId('user-message').first().textContent()) ?? '', /Please fix the TODO/);
  assert.ok((await page.getByTestId('tool-card').count()) > 2);
  assert.equal(await page.getByTestId('tokens-input').textContent(), '11,400');
  await page.screenshot({ path: screenshotPath('export-offline.png') });
});

test('saved stdout (with a non-JSON line) and Claude Code stream-json load too', async (t) => {
  const session = await recordSession();
  if (!haveBrowser(t)) return;
  browser ??= await launch();
  const page = await browser.browser.newPage();
  const ours = await startViewer(['view', session.file]);
  try {
    assert.match(ours.stderr(), /1 line of .*session\.jsonl skipped \(not JSON messages\)/);
    await page.goto(ours.url);
    await page.locator('[data-tool-id="toolu_read"]').waitFor();
    assert.equal(await page.locator('[data-tool-id="toolu_read"]').getAttribute('data-status'), 'completed');
  } finally {
    await stopViewer(ours.child);
  }
  const trace = '/work/shared/reference/traces/claude-code-stream-json-tool.jsonl';
  const dir = tempDir();
  const copy = path.join(dir, 'claude.jsonl');
  const fallback = [
    {
      type: 'system',
      subtype: 'init',
      cwd: '/w',
      session_id: 'cc-1',
      tools: ['Bash'],
      mcp_servers: [],
      model: 'claude-opus-4-8',
      permissionMode: 'default',
      uuid: 'u0',
      apiKeySource: 'none',
    },
    {
      type: 'assistant',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-opus-4-8',
        content: [
          {
            type: 'tool_use',
            id: 'toolu_fake_2',
            name: 'Bash',
            input: { command: 'echo hi', description: 'Print hi' },
          },
        ],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 12, output_tokens: 1 },
      },
      parent_tool_use_id: null,
      session_id: 'cc-1',
      uuid: 'u1',
    },
    {
      type: 'user',
      message: {
        role: 'user',
        content: [{ tool_use_id: 'toolu_fake_2', type: 'tool_result', content: 'hi', is_error: false }],
      },
      parent_tool_use_id: null,
      session_id: 'cc-1',
      uuid: 'u2',
      tool_use_result: { stdout: 'hi', stderr: '', interrupted: false, isImage: false },
    },
    {
      type: 'assistant',
      message: {
        id: 'msg_2',
        type: 'message',
        role: 'assistant',
        model: 'claude-opus-4-8',
        content: [{ type: 'text', text: 'The command printed: hi' }],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 12, output_tokens: 1 },
      },
      parent_tool_use_id: null,
      session_id: 'cc-1',
      uuid: 'u3',
    },
  ];
  let text: string;
  try {
    text = readFileSync(trace, 'utf8');
  } catch {
    text = fallback.map((l) => JSON.stringify(l)).join('\n');
  }
  (await import('node:fs')).writeFileSync(copy, text);
  const claude = await startViewer(['view', copy]);
  try {
    await page.goto(claude.url);
    const bash = page.locator('[data-tool-id="toolu_fake_2"]');
    await bash.waitFor();
    assert.equal(await bash.getAttribute('data-status'), 'completed');
    assert.match((await bash.getByTestId('terminal').textContent()) ?? '', /\$ echo hi[\s\S]*hi/);
    assert.match((await page.getByTestId('assistant-text').last().textContent()) ?? '', /The command printed: hi/);
    assert.match((await page.getByTestId('model').textContent()) ?? '', /claude-opus-4-8/);
  } finally {
    await stopViewer(claude.child);
  }
});
