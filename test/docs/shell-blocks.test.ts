/**
 * Every shell block of the README, CONTRIBUTING and docs/ (```sh, ```bash, ```shell, ```console) runs
 * as written, so no command example rots: each in a fresh folder holding the files the pages talk
 * about, with the built CLI as `agentpipe` on PATH, no key and no network (`sh -e`; `bash -e` for
 * bash blocks). It must exit 0, and when a ```text block follows it, print that (`…` stands for
 * any text).
 *
 * A block that cannot run here carries a marker comment on the line above its fence, which this test
 * honours and reports as the skip's reason:
 *   <!-- docs-test: skip CATEGORY -->    one of the categories in WHY below
 *   <!-- docs-test: elsewhere FILE -->   a test that runs it with more checks (FILE must exist and name the page)
 * An unmarked block that fails is a wrong example: fix the page, or mark it with the honest reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';
import { FIXTURE } from '../mcp/helpers.ts';
import { docsShellEnv, fencedBlocks, type Fenced } from './shell.ts';

/** Why a block is not run here, by the category its marker names. */
const WHY: Record<string, string> = {
  key: 'needs a real provider key or a tape recorded with one: a billed model turn, never run in tests',
  server: 'starts a server (or a worker, or a page) that runs until it is stopped, or talks to one at a given address',
  external: 'needs a program or a machine the test machine lacks (docker, another agent CLI, a remote Redis)',
  slow: 'installs or runs the whole suite (npm ci, npm test, npm pack, npm run compat): CI runs these itself',
  ids: "names the reader's own session or message ids, which exist only on their machine",
  sandbox: 'a session inside the OS sandbox, shown as the agent sees it: not a host shell',
};
const SHELLS = new Set(['sh', 'bash', 'shell', 'console']);
const PAGES = ['README.md', 'CONTRIBUTING.md', ...readdirSync(path.join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter(
  (file) => file.endsWith('.md'),
);

/** The folder a block runs in: the files the pages' examples name. */
function exampleFolder(): string {
  const turns = JSON.stringify({ turns: [{ text: 'Done.' }] });
  return tempDir({
    'notes.txt': 'Buy milk.\n',
    'turns.json': turns,
    'demo.json': turns,
    'script.json': turns,
    'mcp.json': JSON.stringify({ mcpServers: { sum: { command: process.execPath, args: [FIXTURE] } } }),
  });
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const linePattern = (line: string) => new RegExp(`^${line.split('…').map(escape).join('.*')}$`);

/** What a marker says about a block: run it, or skip it and why. */
function verdict(page: string, block: Fenced): { run: true } | { run: false; why: string } {
  for (const mark of block.marks) {
    const skip = /^docs-test: skip (\S+)$/.exec(mark);
    if (skip) {
      assert.ok(WHY[skip[1]!], `${page}:${block.line}: unknown category "${skip[1]}" (known: ${Object.keys(WHY)})`);
      return { run: false, why: WHY[skip[1]!]! };
    }
    const elsewhere = /^docs-test: elsewhere (\S+)$/.exec(mark);
    if (elsewhere) {
      const file = path.join(ROOT, elsewhere[1]!);
      assert.ok(existsSync(file), `${page}:${block.line}: ${elsewhere[1]} does not exist`);
      assert.ok(readFileSync(file, 'utf8').includes(path.basename(page)), `${elsewhere[1]} does not name ${page}`);
      return { run: false, why: `run by ${elsewhere[1]}` };
    }
    assert.doesNotMatch(mark, /^docs-test/, `${page}:${block.line}: a docs-test marker this test does not know`);
  }
  assert.notEqual(block.info, 'console', `${page}:${block.line}: console blocks are run by examples.test.ts: mark it`);
  return { run: true };
}

/** A block that has not ended by then is a server the page did not mark: it fails, its processes killed. */
const BLOCK_LIMIT_MS = 60_000;

/** Runs a block in its own process group (so whatever it started ends with it); its output and exit code. */
function runShell(shell: string, body: string, cwd: string) {
  const child = spawn(shell, ['-e', '-c', body], {
    cwd,
    env: { ...process.env, ...docsShellEnv() },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdin.end();
  let [stdout, stderr] = ['', ''];
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    process.kill(-child.pid!, 'SIGKILL');
  }, BLOCK_LIMIT_MS);
  return new Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is gone already
      }
      resolve({ code, stdout, stderr, timedOut });
    }),
  );
}

async function runBlock(page: string, block: Fenced): Promise<void> {
  const run = await runShell(block.info === 'bash' ? 'bash' : 'sh', block.body, exampleFolder());
  const where = `${page}:${block.line}`;
  assert.ok(!run.timedOut, `${where} still ran after ${BLOCK_LIMIT_MS} ms: a server? mark it\n${block.body}`);
  assert.equal(run.code, 0, `${where} exited ${run.code}:\n${block.body}\nstderr: ${run.stderr}`);
  assert.doesNotMatch(run.stderr, /^\s+at /m, `${where}: a stack trace on stderr`);
  if (block.next?.info !== 'text') return;
  const expected = block.next.body.split('\n').filter(Boolean);
  const actual = run.stdout.split('\n').filter(Boolean);
  assert.equal(actual.length, expected.length, `${where}: printed\n${run.stdout}\nnot\n${block.next.body}`);
  expected.forEach((line, i) => assert.match(actual[i]!, linePattern(line), `${where}: output line ${i + 1}`));
}

test('the shell blocks of the README, CONTRIBUTING and docs/ run as written', { concurrency: 3 }, async (t) => {
  await Promise.all(
    PAGES.map((page) => {
      const blocks = fencedBlocks(readFileSync(path.join(ROOT, page), 'utf8')).filter((b) => SHELLS.has(b.info));
      return t.test(page, async (pt) => {
        for (const block of blocks) {
          const decision = verdict(page, block);
          await pt.test(`line ${block.line}: ${block.body.split('\n')[0]!.slice(0, 60)}`, async (st) => {
            if (!decision.run) return st.skip(decision.why);
            await runBlock(page, block);
          });
        }
      });
    }),
  );
});

test('the example folder holds the files the runnable blocks name', () => {
  // A guard against a fixture drifting from the pages: each file written there is named by some page.
  const all = PAGES.map((page) => readFileSync(path.join(ROOT, page), 'utf8')).join('\n');
  const folder = exampleFolder();
  for (const name of readdirSync(folder)) assert.ok(all.includes(name), `no page names ${name}`);
});
