/**
 * `view --live` follows new output: the list stays at its end while the session appends items and
 * a streamed answer grows, stops following when the user scrolls up (their place is kept), and
 * follows again once they scroll back to the bottom.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { haveBrowser, launch, screenshotPath, startViewer, stopViewer } from './browser.ts';

const CALLS = 24;
// Paragraphs, so the answer grows in height (not only in width) as it streams.
const SLOW = Array.from({ length: 400 }, (_, i) => `Paragraph ${i}: still going.`).join('\n\n');

let browser: Awaited<ReturnType<typeof launch>> | undefined;
let viewer: Awaited<ReturnType<typeof startViewer>> | undefined;
after(async () => {
  await browser?.close();
  if (viewer) await stopViewer(viewer.child);
});

/** How far the list is from its end, in pixels. */
const fromEnd = (page: Page) =>
  page.getByTestId('scroller').evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
const follow = (page: Page) => page.getByTestId('scroller').getAttribute('data-follow');
const scrollTop = (page: Page) => page.getByTestId('scroller').evaluate((el) => el.scrollTop);

/** Resolves once the streamed answer holds `paragraph` (the session moved on). */
function paragraph(page: Page, n: number) {
  return page
    .getByTestId('assistant-text')
    .filter({ hasText: `Paragraph ${n}:` })
    .waitFor({ state: 'attached' });
}

/** Waits (frame by frame) until the list is within `min`..`max` px of its end; fails saying where it is. */
async function distance(page: Page, what: string, min: number, max: number) {
  const scroller = await page.getByTestId('scroller').elementHandle();
  try {
    await page.waitForFunction(
      ([el, lo, hi]) => {
        const d = el!.scrollHeight - el!.scrollTop - el!.clientHeight;
        return d >= lo! && d <= hi!;
      },
      [scroller, min, max] as const,
      { timeout: 30_000 },
    );
  } catch (error) {
    throw new Error(`${what}: the list is ${await fromEnd(page)} px from its end`, { cause: error });
  }
}
const atEnd = (page: Page, what: string) => distance(page, what, 0, 2);

test('view --live follows new output unless the user scrolled up, and again once back at the bottom', async (t) => {
  if (!haveBrowser(t)) return;
  const dir = tempDir();
  const script = writeScript(dir, [
    {
      text: 'Running a few commands.',
      tool_calls: Array.from({ length: CALLS }, (_, i) => ({
        name: 'Bash',
        id: `toolu_${i}`,
        input: { command: `echo step ${i}` },
      })),
    },
    { text: SLOW, delay_ms: 40, chunk_size: 12 },
  ]);
  viewer = await startViewer(['view', '--live', '--model', 'scripted', '--script', script, '--cwd', dir]);
  browser = await launch();
  const page = await browser.browser.newPage();
  await page.goto(viewer.url);
  await page.getByTestId('prompt-input').fill('Run them');
  await page.getByTestId('send').click();

  // New items (the tool cards) and a growing answer: the list keeps its end in view.
  await page.locator(`[data-tool-id="toolu_${CALLS - 1}"]`).waitFor();
  await paragraph(page, 5);
  const tall = await page.getByTestId('scroller').evaluate((el) => el.scrollHeight > el.clientHeight * 2);
  assert.ok(tall, 'the conversation is taller than the page');
  await atEnd(page, 'while new cards arrive');
  const before = await scrollTop(page);
  await paragraph(page, 20);
  await atEnd(page, 'while the answer grows');
  assert.ok((await scrollTop(page)) > before, 'the list moved down with the answer');

  // The user scrolls up: the list stays where they are while the answer goes on.
  await page.getByTestId('scroller').hover();
  await page.mouse.wheel(0, -1500);
  await distance(page, 'after scrolling up', 1000, Infinity);
  assert.equal(await follow(page), 'reading');
  const reading = await scrollTop(page);
  await paragraph(page, 45);
  assert.equal(await scrollTop(page), reading, 'the place the user scrolled to is kept');
  assert.ok((await fromEnd(page)) > 1000, 'not pulled back to the end');
  await page.screenshot({ path: screenshotPath('live-scrolled-up.png') });

  // Back at the bottom: following resumes.
  // A wheel scroll is animated while the answer grows below it: the user scrolls on until at the end.
  for (let i = 0; i < 20 && (await follow(page)) !== 'pinned'; i++) await page.mouse.wheel(0, 3000);
  await atEnd(page, 'after scrolling back down');
  const resumed = await scrollTop(page);
  await paragraph(page, 70);
  await atEnd(page, 'following again');
  assert.ok((await scrollTop(page)) > resumed, 'the list follows the answer again');

  // Typing in the prompt box (`g`, `k`, Home are the list's keys elsewhere) does not stop following.
  await page.getByTestId('prompt-input').pressSequentially('go back home');
  await page.getByTestId('prompt-input').press('Home');
  assert.equal(await follow(page), 'pinned');
  await page.getByTestId('stop').click();
  await page.getByTestId('notice').filter({ hasText: 'Interrupted' }).waitFor({ timeout: 30_000 });
});
