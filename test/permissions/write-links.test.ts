/**
 * Write and Edit never go through a link at the file's name (issue 27, "Also found"), through the
 * real CLI driven by the official SDK: a symbolic link swapped in after the permission check (the
 * canUseTool callback swaps it before it answers allow) is refused and its target keeps its text;
 * a file hard-linked to a file outside the working folder is replaced, so the outside name keeps
 * its text while the working folder's name gets the new one; a file that was a link all along is
 * refused before its target is read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linkSync, lstatSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { sdkOptions } from '../sdk/helpers.ts';
import { scratchDir } from '../helpers/temp.ts';

/** Runs `turns` through the real CLI; `beforeAllow` runs when a call asks, which is then allowed. */
async function run(
  turns: unknown[],
  prepare: (cwd: string) => void,
  beforeAllow: (cwd: string) => void,
  mode: 'default' | 'acceptEdits' = 'default',
): Promise<{ messages: SDKMessage[]; cwd: string }> {
  const options = sdkOptions(turns, { permissionMode: mode });
  prepare(options.cwd);
  const messages: SDKMessage[] = [];
  const canUseTool = async (_name: string, input: Record<string, unknown>) => {
    beforeAllow(options.cwd);
    return { behavior: 'allow' as const, updatedInput: input };
  };
  for await (const message of query({ prompt: 'go', options: { ...options, canUseTool } })) messages.push(message);
  return { messages, cwd: options.cwd };
}

/** The text of the tool_result of `id`. */
function resultOf(messages: SDKMessage[], id: string): string {
  for (const m of messages)
    if (m.type === 'user' && Array.isArray(m.message.content))
      for (const block of m.message.content)
        if (block.type === 'tool_result' && block.tool_use_id === id) return JSON.stringify(block.content);
  return '';
}

/** A folder outside the working one, holding f.txt. */
function outsideFile(): string {
  const outside = scratchDir('agentpipe-outside-');
  writeFileSync(path.join(outside, 'f.txt'), 'outside text\n');
  return path.join(outside, 'f.txt');
}

/**
 * x.txt, a file inside, while the check judges it; then (in canUseTool, before it answers allow)
 * a link to an outside file. `target()` is that file.
 */
function swappedAfterCheck() {
  let target = '';
  return {
    target: () => target,
    prepare: (dir: string) => {
      target = outsideFile();
      writeFileSync(path.join(dir, 'x.txt'), 'inside\n');
    },
    swap: (dir: string) => {
      rmSync(path.join(dir, 'x.txt'));
      symlinkSync(target, path.join(dir, 'x.txt'));
    },
  };
}

test('a symlink swapped in after the check: Write refuses it and the target keeps its text', async () => {
  const swapped = swappedAfterCheck();
  const { messages, cwd } = await run(
    [
      { tool_calls: [{ name: 'Write', id: 'toolu_w', input: { file_path: 'x.txt', content: 'pwned\n' } }] },
      { text: 'ok' },
    ],
    swapped.prepare,
    swapped.swap,
  );
  assert.equal(readFileSync(swapped.target(), 'utf8'), 'outside text\n');
  assert.ok(lstatSync(path.join(cwd, 'x.txt')).isSymbolicLink());
  assert.match(resultOf(messages, 'toolu_w'), /is a symbolic link to .*f\.txt: Write does not follow links/);
  assert.equal(messages.at(-1)?.type, 'result');
});

test('the same for Edit: the swapped link is refused before the target is read', async () => {
  const swapped = swappedAfterCheck();
  const { messages } = await run(
    [
      { tool_calls: [{ name: 'Read', id: 'toolu_r', input: { file_path: 'x.txt' } }] },
      {
        tool_calls: [
          { name: 'Edit', id: 'toolu_e', input: { file_path: 'x.txt', old_string: 'side', new_string: 'PWNED' } },
        ],
      },
      { text: 'ok' },
    ],
    swapped.prepare,
    swapped.swap,
  );
  assert.equal(readFileSync(swapped.target(), 'utf8'), 'outside text\n');
  const answer = resultOf(messages, 'toolu_e');
  assert.match(answer, /symbolic link/);
  assert.doesNotMatch(answer, /outside text/, 'nothing of the target is shown');
});

test('a hard link to an outside file: Write and Edit replace the name inside; the outside file keeps its text', async () => {
  let target = '';
  const { messages, cwd } = await run(
    [
      { tool_calls: [{ name: 'Read', id: 'toolu_r', input: { file_path: 'hard.txt' } }] },
      {
        tool_calls: [
          {
            name: 'Edit',
            id: 'toolu_e',
            input: { file_path: 'hard.txt', old_string: 'outside text', new_string: 'edited' },
          },
        ],
      },
      { tool_calls: [{ name: 'Read', id: 'toolu_r2', input: { file_path: 'other.txt' } }] },
      { tool_calls: [{ name: 'Write', id: 'toolu_w', input: { file_path: 'other.txt', content: 'written\n' } }] },
      { text: 'ok' },
    ],
    (dir) => {
      target = outsideFile();
      linkSync(target, path.join(dir, 'hard.txt'));
      linkSync(target, path.join(dir, 'other.txt'));
    },
    () => assert.fail('acceptEdits covers these edits inside the folder'),
    'acceptEdits',
  );
  assert.equal(readFileSync(target, 'utf8'), 'outside text\n', 'the outside name keeps its text');
  assert.equal(readFileSync(path.join(cwd, 'hard.txt'), 'utf8'), 'edited\n');
  assert.equal(readFileSync(path.join(cwd, 'other.txt'), 'utf8'), 'written\n');
  assert.equal(statSync(path.join(cwd, 'hard.txt')).nlink, 1, 'a file of its own now');
  assert.equal(statSync(target).mode, statSync(path.join(cwd, 'hard.txt')).mode, 'with the mode it had');
  assert.doesNotMatch(resultOf(messages, 'toolu_w') + resultOf(messages, 'toolu_e'), /error/i);
});

test('a file that is a link all along: Write refuses it, whatever it points to', async () => {
  const { messages, cwd } = await run(
    [
      { tool_calls: [{ name: 'Write', id: 'toolu_w', input: { file_path: 'link.txt', content: 'x\n' } }] },
      { text: 'ok' },
    ],
    (dir) => {
      writeFileSync(path.join(dir, 'real.txt'), 'real\n');
      symlinkSync(path.join(dir, 'real.txt'), path.join(dir, 'link.txt'));
    },
    () => assert.fail('acceptEdits covers these edits inside the folder'),
    'acceptEdits',
  );
  assert.equal(readFileSync(path.join(cwd, 'real.txt'), 'utf8'), 'real\n');
  assert.match(resultOf(messages, 'toolu_w'), /link\.txt is a symbolic link to .*real\.txt/);
});
