/**
 * Descriptors agentpipe inherited without close-on-exec (from whoever started it: a terminal, a CI runner) never
 * reach a sandboxed command: the launcher closes them (Node's spawn marks those below 17 close-on-exec itself, not
 * the others) (runtime.ts reads them in the
 * background once the sandbox is known to confine). With the sandbox off they do reach it: the test tests something.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { CLI_PATH, parseLines, scriptedStreamArgs } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

/** Runs one Bash call listing its descriptors, with agentpipe holding two inherited ones (40 and 90). */
async function listed(extra: string[]): Promise<string> {
  const dir = tempDir();
  const script = writeScript(dir, [
    { tool_calls: [{ name: 'Bash', input: { command: "ls /proc/self/fd | tr '\\n' ' '" } }] },
    { text: 'done' },
  ]);
  const held = openSync(path.join(dir, 'held.txt'), 'w');
  const args = [
    CLI_PATH,
    '-p',
    'go',
    ...scriptedStreamArgs(script),
    '--permission-mode',
    'bypassPermissions',
    ...extra,
  ];
  const stdio: Array<'pipe' | 'ignore' | number> = ['pipe', 'pipe', 'pipe', ...Array<'ignore'>(88).fill('ignore')];
  stdio[40] = held;
  stdio[90] = held;
  const child = spawn(process.execPath, args, {
    cwd: dir,
    env: { ...process.env, ANTHROPIC_API_KEY: '', AGENTPIPE_HOME: scratchDir('fds-home-') },
    stdio,
  });
  closeSync(held);
  child.stdin!.end();
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, stderr);
  const result = parseLines(stdout).find((line) => line.type === 'user')?.message.content[0];
  return String(result?.content ?? '').trim();
}

test('descriptors agentpipe inherited (40 and 90) are closed before a sandboxed command starts', async () => {
  // ls has its own listing open as 3.
  assert.equal(await listed([]), '0 1 2 3');
  assert.match(await listed(['--sandbox', 'off']), /\b40\b.*\b90\b/, 'unconfined, they are there');
});
