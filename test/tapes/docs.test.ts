/**
 * docs/tapes.md's examples, run as written: the recording command (against the local fake Anthropic API, standing in
 * for the real one), the CI workflow's `agentpipe` steps (offline, no key: `same`), and the script example.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../helpers/cli.ts';
import { docBlocks, runWithLauncher } from '../helpers/docs.ts';
import { scratchDir } from '../helpers/temp.ts';
import { anthropicBlock, anthropicStream, startFakeServer, type Reply } from '../model/fake-servers.ts';

const DOC = readFileSync(path.join(ROOT, 'docs/tapes.md'), 'utf8');

/** The fenced blocks of `lang` in the section titled `heading`. */
const blocks = (heading: string, lang: string) => docBlocks(DOC, 'docs/tapes.md', heading, lang);

/** The command lines of a shell block, comments dropped. */
const commands = (block: string) =>
  block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line && !line.startsWith('#'));

/** Runs a command line with the repository's `agentpipe` launcher first on PATH. */
const sh = (line: string, cwd: string, env: Record<string, string>) => runWithLauncher('sh', ['-c', line], cwd, env);

test('docs/tapes.md: record, then the CI workflow replays and verifies offline; the script example plays', async () => {
  const repo = scratchDir('tape-docs-');
  writeFileSync(path.join(repo, 'notes.txt'), 'alpha\nbeta\n');
  mkdirSync(path.join(repo, 'tapes'));
  mkdirSync(path.join(repo, 'fixtures'));
  const replies: Reply[] = [
    {
      kind: 'sse',
      frames: anthropicStream(
        [
          anthropicBlock(0, { type: 'tool_use', id: 'toolu_read', name: 'Read', input: {} }, [
            { type: 'input_json_delta', partial_json: `{"file_path":"${repo}/no` },
            { type: 'input_json_delta', partial_json: 'tes.txt"}' },
          ]),
        ],
        'tool_use',
      ),
    },
    {
      kind: 'sse',
      frames: anthropicStream(
        [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'Two lines.' }])],
        'end_turn',
      ),
    },
  ];
  let n = 0;
  const api = await startFakeServer(() => replies[Math.min(n++, replies.length - 1)]!);
  try {
    const [record] = commands(blocks('Record', 'sh')[0]!);
    assert.match(record!, /--record tapes\/summary\.tape\.jsonl$/);
    const recorded = await sh(record!, repo, {
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: 'sk-ant-docs-0123456789',
    });
    assert.equal(recorded.code, 0, recorded.err);
    assert.equal(recorded.out, 'Two lines.\n');
  } finally {
    await api.close();
  }

  const workflow = parse(blocks('Verify in CI', 'yaml')[0]!) as {
    jobs: Record<string, { steps: Array<{ run?: string }> }>;
  };
  const steps = Object.values(workflow.jobs).flatMap((job) => job.steps.flatMap((s) => (s.run ? [s.run] : [])));
  const replays = steps.filter((run) => run.startsWith('agentpipe '));
  assert.deepEqual(replays, ['agentpipe replay tapes/summary.tape.jsonl --verify']);
  for (const run of replays) {
    const result = await sh(run, repo, { ANTHROPIC_BASE_URL: api.url });
    assert.equal(result.code, 0, result.err);
    assert.equal(result.out, 'same\n');
  }

  const [toScript, playScript] = commands(blocks('Scripts from real runs', 'sh')[0]!);
  assert.equal((await sh(toScript!, repo, {})).code, 0);
  const played = await sh(playScript!, repo, {});
  assert.equal(played.code, 0, played.err);
  assert.equal(played.out, 'Two lines.\n');
});
