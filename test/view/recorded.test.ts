/** `agentpipe view <transcript>`: a recorded scripted session, checked in headless Chromium. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { parseLines } from '../helpers/cli.ts';
import { haveBrowser, launch, screenshotPath, startViewer, stopViewer } from './browser.ts';
import { recordSession, type RecordedSession } from './fixture.ts';

let session: RecordedSession;
let browser: Awaited<ReturnType<typeof launch>> | undefined;
let viewer: Awaited<ReturnType<typeof startViewer>> | undefined;
let page: Page;

before(async () => {
  session = await recordSession();
});
after(async () => {
  await browser?.close();
  if (viewer) await stopViewer(viewer.child);
});

/** Opens the transcript once for all the tests of this file. */
async function open(t: import('node:test').TestContext): Promise<boolean> {
  if (!haveBrowser(t)) return false;
  if (page) return true;
  viewer = await startViewer(['view', session.transcript]);
  assert.match(viewer.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  browser = await launch();
  page = await browser.browser.newPage();
  await page.goto(viewer.url);
  await page.getByTestId('tool-card').first().waitFor();
  return true;
}

const card = (id: string) => page.locator(`[data-tool-id="${id}"]`).first();

/** Scrolls to `top` and resolves after the list rendered for it; false once past the end. */
function scrollAndRender(top: number): Promise<boolean> {
  return page.getByTestId('scroller').evaluate(async (el, y) => {
    el.scrollTo(0, y);
    // Two frames: the scroll event, then the render it caused (slow machines take longer).
    const frame = (globalThis as unknown as { requestAnimationFrame(cb: () => void): number }).requestAnimationFrame;
    await new Promise<void>((resolve) => frame(() => frame(resolve)));
    await new Promise((resolve) => setTimeout(resolve, 20));
    return y < el.scrollHeight;
  }, top);
}

/** Scrolls the virtualized list until the card is rendered, then into view. */
async function reveal(id: string) {
  // The list re-renders as rows get measured, so a found card may be replaced: retry.
  for (let attempt = 0; ; attempt++) {
    for (let y = 0; (await card(id).count()) === 0 && (await scrollAndRender(y)); y += 300);
    try {
      await card(id).scrollIntoViewIfNeeded({ timeout: 2000 });
      break;
    } catch (error) {
      if (attempt === 4) throw error;
    }
  }
  return card(id);
}

/** Scrolls the virtualized list from top to bottom, collecting what `read` sees on the way. */
async function sweep(read: () => Promise<Array<string | null>>): Promise<Set<string | null>> {
  const seen = new Set<string | null>();
  const scroller = page.getByTestId('scroller');
  const height = await scroller.evaluate((el) => el.scrollHeight);
  for (let y = 0; y <= height + 600; y += 400) {
    await scrollAndRender(y);
    for (const value of await read()) seen.add(value);
  }
  await scroller.evaluate((el) => el.scrollTo(0, 0));
  return seen;
}

test('conversation: prompts, Markdown with highlighted code, thinking folded', async (t) => {
  if (!(await open(t))) return;
  const prompts = new Set(await page.getByTestId('user-message').locator('.user-text').allTextContents());
  await page.keyboard.press('End');
  await page.getByText('One more thing').waitFor();
  for (const text of await page.getByTestId('user-message').locator('.user-text').allTextContents()) prompts.add(text);
  assert.deepEqual([...prompts], ['Please fix the TODO in notes.md', 'One more thing']);
  await page.keyboard.press('Home');
  await page.getByTestId('thinking').first().waitFor();
  const thinking = page.getByTestId('thinking').first();
  assert.equal(await thinking.evaluate((d) => (d as unknown as { open: boolean }).open), false);
  assert.match((await thinking.textContent()) ?? '', /Thinking/);
  await page.keyboard.press('End');
  const done = page.locator('.markdown h2', { hasText: 'Done' });
  await done.waitFor();
  assert.ok(await page.locator('.markdown strong', { hasText: 'the notes' }).count());
  assert.ok(await page.locator('pre.code .hljs-keyword', { hasText: 'def' }).count(), 'python code is highlighted');
  await page.keyboard.press('Home');
});

test('tool cards: one per call, an icon per kind, statuses, terminal output with exit codes', async (t) => {
  if (!(await open(t))) return;
  const kinds = await sweep(() =>
    page.locator('[data-testid="tool-card"]').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-kind'))),
  );
  for (const kind of ['read', 'search', 'execute', 'edit', 'think', 'fetch'])
    assert.ok(kinds.has(kind), `a ${kind} card (${[...kinds]})`);
  assert.equal(await (await reveal('toolu_fail')).getAttribute('data-status'), 'failed');
  assert.match((await card('toolu_fail').getByTestId('exit-code').textContent()) ?? '', /exit 2/);
  // WebFetch asks in acceptEdits; the recorded run has no permission prompt, so it is denied.
  assert.equal(await (await reveal('toolu_fetch')).getAttribute('data-status'), 'denied');
  assert.ok(await card('toolu_fetch').locator('.kind-icon svg').count(), 'the card has its kind icon');
  await reveal('toolu_echo');
  assert.equal(await card('toolu_echo').getAttribute('data-status'), 'completed');
  assert.match(
    (await card('toolu_echo').getByTestId('terminal').textContent()) ?? '',
    /\$ echo hello from bash[\s\S]*hello from bash[\s\S]*exit 0/,
  );
  await reveal('toolu_read');
  assert.match((await card('toolu_read').getByTestId('location').textContent()) ?? '', /notes\.md$/);
  assert.match(
    (await card('toolu_read').getByTestId('location').getAttribute('href')) ?? '',
    /^file:\/\/\/.*notes\.md$/,
  );
});

test('Edit diff: unified and side by side; Write as a new file', async (t) => {
  if (!(await open(t))) return;
  const edit = await reveal('toolu_edit');
  const diff = edit.getByTestId('diff');
  assert.deepEqual(await diff.locator('.diff-del code').allTextContents(), ['TODO: make it pretty']);
  assert.deepEqual(await diff.locator('.diff-add code').allTextContents(), [
    'It is pretty now.',
    'It has dark and light themes.',
  ]);
  // The diff is of the whole file: the TODO is numbered as line 4 of notes.md, with its context above.
  assert.equal(await diff.locator('.diff-del .ln').first().textContent(), '4');
  assert.deepEqual(
    (await diff.locator('.diff-ctx code').allTextContents()).map((s) => s.trim()),
    ['# Notes', '', 'The viewer shows a session.'],
  );
  await page.screenshot({ path: screenshotPath('diff-unified.png') });
  await page.getByTestId('diff-mode').click();
  await edit.locator('.diff-split').waitFor();
  assert.equal(
    await edit.locator('.diff-row').count(),
    5,
    'three context rows, one deleted line paired with the first added one, then the second',
  );
  await page.screenshot({ path: screenshotPath('diff-side-by-side.png') });
  await page.getByTestId('diff-mode').click();
  await reveal('toolu_write');
  assert.match((await card('toolu_write').getByTestId('diff').textContent()) ?? '', /new file/);
});

test('image from Read, nested subagent under its Task, plan checklist, notices', async (t) => {
  if (!(await open(t))) return;
  const image = (await reveal('toolu_png')).getByTestId('tool-image');
  assert.equal(await image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth), 24);
  const task = await reveal('toolu_task');
  const subagent = task.getByTestId('subagent');
  assert.match((await subagent.locator('summary').first().textContent()) ?? '', /Subagent reviewer/);
  assert.equal(await subagent.locator('[data-tool-id="toolu_subread"]').getAttribute('data-status'), 'completed');
  assert.deepEqual(
    (await subagent.getByTestId('assistant-text').allTextContents()).map((s) => s.trim()),
    ['Reading the file under review.', 'The edit looks right: the TODO is resolved.'],
  );
  await subagent.locator('summary').first().click();
  assert.equal(await subagent.locator('[data-tool-id="toolu_subread"]').isVisible(), false, 'the subtree folds');
  await subagent.locator('summary').first().click();

  const entries = page.getByTestId('plan-entry');
  assert.deepEqual(await entries.evaluateAll((li) => li.map((l) => l.getAttribute('data-status'))), [
    'completed',
    'completed',
    'in_progress',
  ]);
  assert.match((await page.getByTestId('plan').textContent()) ?? '', /Review the change/);

  assert.equal(await (await reveal('toolu_rm')).getAttribute('data-status'), 'denied');
  const all = [
    ...(await sweep(() =>
      page.getByTestId('notice').evaluateAll((n) => n.map((x) => `${x.getAttribute('data-level')}: ${x.textContent}`)),
    )),
  ].join('\n');
  // The refusal in Claude Code 2.1.332's words (agent/claude-denial.ts): the command, not the rule.
  assert.match(
    all,
    /denial: Permission denied: `rm -f notes\.md\.bak`.*with command rm -f notes\.md\.bak has been denied/,
  );
  assert.match(all, /hook: PostToolUse:Edit hook ran.*formatted notes\.md/);
  assert.match(all, /error: Error: api_error.*refuses this one/);
});

test('header and footer: model, session id, mode; tokens, cost, turns, duration of the results', async (t) => {
  if (!(await open(t))) return;
  const results = parseLines(session.stdout).filter((l) => l.type === 'result');
  const sum = (f: (r: Record<string, any>) => number) => results.reduce((a, r) => a + f(r), 0).toLocaleString('en-US');
  assert.equal(await page.getByTestId('model').textContent(), 'model scripted');
  assert.match((await page.getByTestId('session-id').getAttribute('title')) ?? '', new RegExp(session.sessionId));
  assert.equal(await page.getByTestId('permission-mode').textContent(), 'mode acceptEdits');
  assert.equal(
    await page.getByTestId('tokens-input').textContent(),
    sum((r) => r.usage.input_tokens),
  );
  assert.equal(await page.getByTestId('tokens-input').textContent(), '11,400');
  assert.equal(
    await page.getByTestId('tokens-output').textContent(),
    sum((r) => r.usage.output_tokens),
  );
  assert.equal(await page.getByTestId('tokens-cache-read').textContent(), '300');
  assert.equal(await page.getByTestId('tokens-cache-write').textContent(), '50');
  assert.equal(
    await page.getByTestId('turns').textContent(),
    sum((r) => r.num_turns),
  );
  assert.equal(
    await page.getByTestId('cost').textContent(),
    `$${results.reduce((a, r) => a + r.total_cost_usd, 0).toFixed(4)}`,
  );
  assert.match((await page.getByTestId('duration').textContent()) ?? '', /\d+ ms|\d\.\d s/);
  assert.ok(
    await page.locator('[data-testid="timeline"] [data-mark="failed"]').count(),
    'failures are marked on the timeline',
  );
  await page.screenshot({ path: screenshotPath('recorded-dark.png') });
});

test('keyboard navigation, search, themes', async (t) => {
  if (!(await open(t))) return;
  await page.getByTestId('search').focus();
  await page.keyboard.press('Escape');
  await page.keyboard.press('g');
  await page.keyboard.press('j');
  await page.keyboard.press('j');
  const selected = () => page.locator('.virtual-row:has(.item.selected)').getAttribute('data-index');
  assert.equal(await selected(), '2');
  await page.keyboard.press('k');
  assert.equal(await selected(), '1');
  await page.keyboard.press('ArrowDown');
  assert.equal(await selected(), '2');
  await page.keyboard.press('/');
  await page.keyboard.type('reviewer');
  await page.getByTestId('search-count').waitFor();
  assert.equal(await page.getByTestId('search-count').textContent(), '1 match');
  assert.equal(await page.locator('[data-testid="conversation"] .virtual-row').count(), 1);
  await page.keyboard.press('Escape');
  assert.equal(await page.getByTestId('search-count').count(), 0);
  assert.equal(await page.locator('html').getAttribute('data-theme'), 'dark');
  await page.getByTestId('theme-toggle').click();
  await page.locator('html[data-theme="light"]').waitFor({ state: 'attached' });
  assert.equal(
    await page
      .locator('body')
      .evaluate(
        (body) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(
            body,
          ).backgroundColor,
      ),
    'rgb(246, 247, 249)',
  );
  await page.screenshot({ path: screenshotPath('recorded-light.png') });
  await page.getByTestId('theme-toggle').click();
});
