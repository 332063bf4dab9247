/**
 * Output styles (docs/output-styles.md): the user's and the project's style files, the settings' `outputStyle`, what
 * the model gets (the real CLI against a fake Messages API), what a client is told (`system/init`, `initialize`), and
 * a malformed or unchosen style.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { query, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { CLI_PATH, parseLines, runCli } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import { anthropicBlock, anthropicStream, startFakeServer } from '../model/fake-servers.ts';
import { CODING_INSTRUCTIONS } from '../../src/session/system-prompt.ts';

/** A home with a user style and a project with two styles (one keeping the working instructions) and settings. */
function place(settings: Record<string, unknown>) {
  const root = scratchDir('styles-');
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'work');
  mkdirSync(path.join(home, 'output-styles'), { recursive: true });
  mkdirSync(path.join(cwd, '.agentpipe', 'output-styles'), { recursive: true });
  writeFileSync(path.join(home, 'output-styles', 'terse.md'), '---\ndescription: Short\n---\nAnswer in five words.\n');
  const project = path.join(cwd, '.agentpipe', 'output-styles');
  writeFileSync(path.join(project, 'pirate.md'), '---\nname: Pirate\n---\nTalk like a pirate.\n');
  writeFileSync(path.join(project, 'plain.md'), '---\nkeep-coding-instructions: true\n---\nPlain words only.\n');
  writeFileSync(path.join(project, 'broken.md'), '---\nname: [unclosed\n---\nNever read.\n');
  writeFileSync(path.join(cwd, '.agentpipe', 'settings.json'), JSON.stringify(settings));
  return { home, cwd };
}

const reply = () => ({
  kind: 'sse' as const,
  frames: anthropicStream(
    [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'Arr.' }])],
    'end_turn',
  ),
});

async function run(settings: Record<string, unknown>) {
  const server = await startFakeServer(reply());
  try {
    const { home, cwd } = place(settings);
    const env = { AGENTPIPE_HOME: home, ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url };
    const args = ['-p', '--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-4-6'];
    const out = await runCli([...args, '--trust-project', 'hi'], { cwd, env });
    assert.equal(out.code, 0, out.stderr);
    const system = (server.requests[0]!.body as { system: unknown }).system;
    const text = typeof system === 'string' ? system : JSON.stringify(system);
    return { init: parseLines(out.stdout).find((l) => l.subtype === 'init')!, text, stderr: out.stderr };
  } finally {
    await server.close();
  }
}

test("the settings' outputStyle: the model gets the style in Claude Code's words, in place of agentpipe's working instructions", async () => {
  const { init, text, stderr } = await run({ outputStyle: 'Pirate' });
  assert.equal(init.output_style, 'Pirate');
  assert.ok(text.includes('# Output Style: Pirate\nTalk like a pirate.'), text);
  assert.ok(!text.includes(CODING_INSTRUCTIONS), 'a style without keep-coding-instructions replaces them');
  // The malformed file is named and skipped; the others load.
  assert.match(stderr, /skipped the output style .*broken\.md: invalid YAML frontmatter/);
});

test('keep-coding-instructions keeps them; an unknown style is said and the default used', async () => {
  const kept = await run({ outputStyle: 'plain' });
  assert.equal(kept.init.output_style, 'plain');
  assert.ok(kept.text.includes('# Output Style: plain\nPlain words only.'));
  assert.ok(kept.text.includes(CODING_INSTRUCTIONS));
  const unknown = await run({ outputStyle: 'Shanty' });
  assert.equal(unknown.init.output_style, 'default');
  assert.ok(!unknown.text.includes('# Output Style'));
  assert.match(
    unknown.stderr,
    /outputStyle "Shanty" is not one of this session's styles \(default, terse, Pirate, plain\)/,
  );
});

test('initialize names the styles, the one in effect and the user folder; reload_output_styles reads them again', async () => {
  const { home, cwd } = place({ outputStyle: 'terse' });
  // No prompt, and the input stays open until the control requests were answered.
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  async function* none(): AsyncIterable<SDKUserMessage> {
    await finished;
  }
  let stderr = '';
  const q = query({
    prompt: none(),
    options: {
      pathToClaudeCodeExecutable: CLI_PATH,
      cwd,
      model: 'scripted',
      settingSources: ['user', 'project', 'local'],
      extraArgs: { 'trust-project': null },
      env: { ...process.env, AGENTPIPE_HOME: home },
      stderr: (data) => (stderr += data),
    },
  });
  const init = await q.initializationResult().catch((error: Error) => assert.fail(`${error.message}: ${stderr}`));
  assert.equal(init.output_style, 'terse');
  assert.deepEqual(init.available_output_styles, ['default', 'terse', 'Pirate', 'plain']);
  assert.equal((init as { user_output_styles_dir?: string }).user_output_styles_dir, path.join(home, 'output-styles'));
  writeFileSync(path.join(home, 'output-styles', 'later.md'), 'Added later.\n');
  const reloaded = await q.reloadOutputStyles();
  assert.deepEqual(reloaded.available_output_styles, ['default', 'later', 'terse', 'Pirate', 'plain']);
  done();
  for await (const _ of q) {
    /* drain */
  }
});
