/**
 * The README guides: short, with a table of contents; its two commands are the ones CI runs; its command-line
 * examples, Codex's faces (exec, app-server, the Codex SDK) and the tape steps run as written; the README and docs/
 * link only to files that exist and name no issue numbers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';
import { runToEnd } from '../helpers/processes.ts';
import { scratchDir } from '../helpers/temp.ts';
import { parseLines } from '../helpers/cli.ts';
import { anthropicBlock, anthropicStream, startFakeServer } from '../model/fake-servers.ts';

const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  ...readdirSync(path.join(ROOT, 'docs')).map((f) => `docs/${f}`),
].filter((file) => file.endsWith('.md'));

/** The `lang` blocks of the README section titled `heading` (a `## ` or `### ` heading). */
function shBlocks(heading: string, lang = 'sh'): string[] {
  const section = README.split(/^#{2,3} /m).find((s) => s.startsWith(`${heading}\n`));
  assert.ok(section, `README has a section "${heading}"`);
  return [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!);
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

async function sh(line: string, cwd: string, extra: Record<string, string> = {}) {
  const env = {
    ...process.env,
    ANTHROPIC_API_KEY: '',
    PATH: `${ROOT}${path.delimiter}${process.env.PATH ?? ''}`,
    ...extra,
  };
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

/** A throwaway AGENTPIPE_HOME (and HOME) with no model keys, for examples that run sessions. */
function isolated(): Record<string, string> {
  const home = scratchDir('readme-home-');
  return { AGENTPIPE_HOME: home, HOME: home, OPENAI_API_KEY: '', CODEX_API_KEY: '', OPENAI_BASE_URL: '' };
}

test("README: Codex's clients — agentpipe exec --json, app-server's initialize, the Codex SDK — run as written", async () => {
  const [exec, appServer] = commands(shBlocks("Codex's clients")[0]!);
  assert.match(exec!, /^agentpipe exec --json /);
  assert.match(appServer!, /\| agentpipe app-server$/);
  const cwd = tempDir({ 'NOTES.md': '# Notes\n' });
  const env = isolated();
  const events = await sh(exec!, cwd, env);
  assert.equal(events.code, 0, events.err);
  const lines = parseLines(events.out);
  assert.deepEqual(
    [lines[0]!.type, lines[1]!.type, lines.at(-1)!.type],
    ['thread.started', 'turn.started', 'turn.completed'],
  );
  assert.ok(lines.some((e) => e.item?.type === 'agent_message' && /NOTES\.md/.test(e.item.text)));
  const initialized = await sh(appServer!, cwd, env);
  assert.equal(initialized.code, 0, initialized.err);
  const [answer] = parseLines(initialized.out);
  assert.equal(answer!.id, 1);
  assert.match(answer!.result.userAgent, /^me\/\S+ \(agentpipe/);

  const [sdk] = shBlocks("Codex's clients", 'ts');
  assert.match(sdk!, /codexPathOverride: 'agentpipe'/);
  writeFileSync(path.join(cwd, 'sdk.ts'), sdk!);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(cwd, 'node_modules'));
  // The checkout's launcher is the agentpipe on PATH, and the pinned Node the `node` it starts.
  const PATH = [ROOT, path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter);
  const run = await runToEnd(process.execPath, ['sdk.ts'], { cwd, env: { ...process.env, ...env, PATH } });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /NOTES\.md/);
});

test('README: the tape steps — record once against the API, then replay --verify offline with no key: same', async () => {
  const steps = commands(shBlocks('Models')[0]!).filter((line) => /tape/.test(line));
  assert.equal(steps.length, 2);
  assert.match(steps[0]!, /--record (\S+)$/);
  assert.match(steps[1]!, /^agentpipe replay \S+ --verify$/);
  const cwd = tempDir({ 'NOTES.md': '# Notes\n' });
  mkdirSync(path.join(cwd, 'tapes')); // the repository's folder of tapes (--record makes the file, not its folder)
  const env = isolated();
  const frames = anthropicStream(
    [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'A tape of one answer.' }])],
    'end_turn',
  );
  const api = await startFakeServer({ kind: 'sse', frames });
  try {
    const recorded = await sh(steps[0]!, cwd, { ...env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-ant-x' });
    assert.equal(recorded.code, 0, recorded.err);
    assert.equal(recorded.out, 'A tape of one answer.\n');
  } finally {
    await api.close();
  }
  assert.equal(api.requests.length, 1);
  const verified = await sh(steps[1]!, cwd, { ...env, ANTHROPIC_BASE_URL: api.url });
  assert.equal(verified.code, 0, verified.err);
  assert.equal(verified.out.trim(), 'same');
});
