/**
 * `agentpipe view`'s waterfall, in headless Chromium: a stream recorded by the real CLI on the scripted model (a
 * request asking for Read, a Bash call that takes at least 400 ms and a Task subagent, then the closing request)
 * shows the prompt's bars computed from the stream's own timestamps and the result's duration: in order, the
 * subagent's request nested under its Task call, each bar inside its parent's time, the closing request after the
 * calls it waited for, and the Bash bar drawn longer than the Read bar.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { haveBrowser, launch, screenshotPath, startViewer, stopViewer } from './browser.ts';

const cleanups: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** What the test reads of a row's element in the page (the tests are typed without the DOM's library). */
interface PageElement {
  dataset: Record<string, string>;
  querySelector(selector: string): { getBoundingClientRect(): { width: number } };
}

/** A row as the page shows it. */
interface Row {
  kind: string;
  label: string;
  depth: number;
  start: number;
  duration: number;
  width: number;
}

test('view: the waterfall shows the prompt’s requests, calls and subagent from the stream, in order and nested', async (t) => {
  if (!haveBrowser(t)) return;
  const dir = tempDir({ 'notes.txt': 'alpha\n' });
  const script = writeScript(dir, [
    {
      tool_calls: [
        { name: 'Read', id: 'toolu_read', input: { file_path: 'notes.txt' } },
        { name: 'Bash', id: 'toolu_bash', input: { command: 'sleep 0.4' } },
        {
          name: 'Task',
          id: 'toolu_task',
          input: { description: 'look', prompt: 'Say hi', subagent_type: 'general-purpose' },
        },
      ],
    },
    { text: 'Hi from the subagent.' },
    { text: 'All done.' },
  ]);
  const run = await runCli(['-p', 'go', ...scriptedStreamArgs(script), '--permission-mode', 'bypassPermissions'], {
    cwd: dir,
    timeoutMs: 60_000,
  });
  assert.equal(run.code, 0, run.stderr);
  const result = (parseLines(run.stdout) as Array<Record<string, unknown>>).at(-1)!;
  assert.equal(result.type, 'result');
  const file = path.join(dir, 'run.jsonl');
  writeFileSync(file, run.stdout);

  const viewer = await startViewer(['view', file]);
  cleanups.push(() => stopViewer(viewer.child));
  const browser = await launch();
  cleanups.push(() => browser.close());
  const page = await browser.browser.newPage();
  await page.goto(viewer.url);
  await page.getByTestId('tool-card').first().waitFor();
  assert.equal(await page.getByTestId('waterfall').count(), 0, 'hidden until asked for');
  await page.getByTestId('waterfall-toggle').click();
  await page.getByTestId('waterfall-row').first().waitFor();
  await page.screenshot({ path: screenshotPath('waterfall.png') });

  const rows: Row[] = await page.getByTestId('waterfall-row').evaluateAll((elements) =>
    elements.map((el) => {
      const e = el as unknown as PageElement;
      const bar = e.querySelector('.wf-bar').getBoundingClientRect();
      return {
        kind: e.dataset.kind!,
        label: e.dataset.label!,
        depth: Number(e.dataset.depth),
        start: Number(e.dataset.startMs),
        duration: Number(e.dataset.durationMs),
        width: bar.width,
      };
    }),
  );
  assert.deepEqual(
    rows.map((r) => [r.kind, r.label, r.depth]),
    [
      ['prompt', 'Prompt 1', 0],
      ['model', 'chat scripted', 1],
      ['tool', 'Read', 1],
      ['tool', 'Bash', 1],
      ['tool', 'Task', 1],
      ['model', 'chat scripted', 2],
      ['model', 'chat scripted', 1],
    ],
  );
  const [prompt, first, read, bash, task, sub, last] = rows as [Row, Row, Row, Row, Row, Row, Row];
  const end = (r: Row) => r.start + r.duration;
  // The prompt's bar is the result's duration; every bar lies within its parent's.
  assert.equal(prompt.start, 0);
  assert.ok(
    Math.abs(prompt.duration - Number(result.duration_ms)) <= 50,
    `${prompt.duration} vs ${result.duration_ms}`,
  );
  for (const r of rows.slice(1)) assert.ok(r.start >= 0 && end(r) <= prompt.duration, JSON.stringify(r));
  assert.ok(sub.start >= task.start && end(sub) <= end(task), 'the subagent’s request inside its Task call');
  // Each call starts when the first request's message asked for it; the closing request waits for all of them.
  for (const call of [read, bash, task]) assert.ok(call.start >= first.start && call.start <= end(first));
  assert.ok(bash.duration >= 400, `the Bash call took ${bash.duration} ms`);
  assert.ok(last.start >= Math.max(end(read), end(bash), end(task)), 'the last request after every call ended');
  assert.ok(bash.width > read.width, `Bash drawn longer (${bash.width}px) than Read (${read.width}px)`);
});
