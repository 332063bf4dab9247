/**
 * The README guides: short, with a table of contents; its two commands are the ones CI runs; its command-line
 * examples run as written; the README and docs/ link only to files that exist and name no issue numbers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';
import { runToEnd } from '../helpers/processes.ts';

const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  ...readdirSync(path.join(ROOT, 'docs')).map((f) => `docs/${f}`),
].filter((file) => file.endsWith('.md'));

/** The `sh` blocks of the README section titled `heading` (a `## ` or `### ` heading). */
function shBlocks(heading: string): string[] {
  const section = README.split(/^#{2,3} /m).find((s) => s.startsWith(`${heading}\n`));
  assert.ok(section, `README has a section "${heading}"`);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** A block's command lines, their comments dropped. */
const commands = (block: string) =>
  block
    .split('\n')
    .map((line) => line.replace(/\s+# .*$/, '').trim())
    .filter(Boolean);

/** GitHub's anchor of a heading. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

async function sh(line: string, cwd: string) {
  const env = { ...process.env, ANTHROPIC_API_KEY: '', PATH: `${ROOT}${path.delimiter}${process.env.PATH ?? ''}` };
  const { code, stdout, stderr } = await runToEnd('sh', ['-c', line], { cwd, env });
  return { code, out: stdout, err: stderr };
}

test('README: at most 300 lines, a table of contents whose links reach its sections', () => {
  assert.ok(README.split('\n').length <= 300, `README has ${README.split('\n').length} lines`);
  const contents = README.split(/^## /m).find((s) => s.startsWith('Contents\n'));
  assert.ok(contents, 'a Contents section');
  const anchors = new Set([...README.matchAll(/^#{2,3} (.+)$/gm)].map((m) => anchor(m[1]!)));
  const links = [...contents.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]!);
  assert.ok(links.length >= 8);
  for (const link of links) assert.ok(anchors.has(link), `#${link} is a heading of the README`);
});

test('README: the two commands are the set-up + main job and the test command CI runs', async () => {
  const [setup, tests] = commands(shBlocks('Quick start: the two commands')[0]!);
  assert.equal(setup, 'npm ci && ./agentpipe -p "What is in this folder?"');
  assert.equal(tests, 'npm test');
  const ci = commands(readFileSync(path.join(ROOT, '.ci/run'), 'utf8').replace(/^#.*$/gm, ''));
  assert.ok(ci.includes('npm ci') && ci.at(-1) === tests, `.ci/run ends with ${tests}`);
  // The main job (npm ci has run: the tests run on its build).
  const cwd = tempDir({ 'NOTES.md': '# Notes\n' });
  const run = await sh(setup.replace('npm ci && ./agentpipe', `${path.join(ROOT, 'agentpipe')}`), cwd);
  assert.equal(run.code, 0, run.err);
  assert.match(run.out, /NOTES\.md/);
});

test('README: the command-line examples run as written', async () => {
  const lines = commands(shBlocks('The command line')[0]!);
  assert.equal(lines.length, 3);
  const cwd = tempDir({ 'NOTES.md': '# Notes\n' });
  const [text, json, stream] = await Promise.all(lines.map((line) => sh(line, cwd)));
  for (const run of [text!, json!, stream!]) assert.equal(run.code, 0, run.err);
  assert.match(text!.out, /NOTES\.md/);
  assert.equal((JSON.parse(json!.out) as { type: string }).type, 'result');
  const types = stream!.out
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { type: string }).type);
  assert.equal(types[0], 'system');
  assert.equal(types.at(-1), 'result');
});

test('README and docs: relative links reach files that exist; no issue numbers', () => {
  for (const page of PAGES) {
    const text = readFileSync(path.join(ROOT, page), 'utf8');
    assert.doesNotMatch(text, /\bissues? #?\d+|\(#\d+\)/i, `${page} names an issue number`);
    for (const [, target] of text.matchAll(/\]\(([^)#:\s]+)(?:#[^)]*)?\)/g)) {
      const file = path.resolve(ROOT, path.dirname(page), target!);
      assert.ok(existsSync(file), `${page} links ${target}, which does not exist`);
    }
  }
});
