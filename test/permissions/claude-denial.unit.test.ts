/**
 * Claude Code 2.1.332's words for a call refused without asking (agent/claude-denial.ts), as the
 * differential suite measured them (permissions/default-bash-asks, default-write-asks, read-outside,
 * dont-ask-bash, plan-write, deny-rule-bash, edit-git-config); other refusals keep agentpipe's words.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { claudeDenial, type RefusedCall } from '../../src/agent/claude-denial.ts';
import { builtinTools } from '../../src/tools/builtin/index.ts';

const tools = builtinTools();
const tool = (name: string) => tools.find((t) => t.name === name)!;

test('refusals in Claude Code 2.1.332 words, with its permission_denied reasons', async (t) => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'agentpipe-denial-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const call = (name: string, input: Record<string, unknown>, more: Partial<RefusedCall> = {}) =>
    claudeDenial({ tool: tool(name), input, refusal: 'no_permission_prompt', mode: 'default', cwd, ...more });
  assert.deepEqual(await call('Bash', { command: 'touch made.txt' }), {
    message:
      `touch in '${cwd}/made.txt' needs approval. The path is inside the working directories for this session ` +
      `('${cwd}'), and Claude Code asks before a shell command creates, changes or removes files there.`,
  });
  assert.deepEqual(await call('Write', { file_path: 'new.txt', content: '' }), {
    message: `Claude requested permissions to write to ${cwd}/new.txt, but you haven't granted it yet.`,
  });
  assert.deepEqual(await call('Read', { file_path: '/etc/hostname' }), {
    message: "Claude requested permissions to read from /etc/hostname, but you haven't granted it yet.",
    reason: 'Path is outside allowed working directories',
    reasonType: 'workingDir',
  });
  const sensitive = `Claude requested permissions to edit ${cwd}/.git/config which is a sensitive file.`;
  assert.deepEqual(await call('Write', { file_path: '.git/config', content: '' }), {
    message: sensitive,
    reason: sensitive,
    reasonType: 'safetyCheck',
  });
  const dontAsk = await call('Bash', { command: 'touch x' }, { refusal: 'mode', mode: 'dontAsk' });
  assert.match(dontAsk!.message, /^Permission to use Bash has been denied because Claude Code is running in don't ask/);
  assert.deepEqual([dontAsk!.reasonType, dontAsk!.how?.non_execution_kind], ['mode', 'permission-rule']);
  assert.deepEqual(await call('Write', { file_path: 'n.txt', content: '' }, { refusal: 'mode', mode: 'plan' }), {
    message: `Cannot write to ${cwd}/n.txt while in plan mode.`,
    reasonType: 'mode',
  });
  assert.deepEqual(await call('Bash', { command: 'rm a.txt' }, { refusal: 'rule' }), {
    message: 'Permission to use Bash with command rm a.txt has been denied.',
    reasonType: 'subcommandResults',
  });
});

test('refusals not measured keep agentpipe words (undefined)', async () => {
  const cwd = '/w';
  const call = (name: string, input: Record<string, unknown>, more: Partial<RefusedCall> = {}) =>
    claudeDenial({ tool: tool(name), input, refusal: 'no_permission_prompt', mode: 'default', cwd, ...more });
  assert.equal(await call('Bash', { command: 'npm test' }), undefined, 'a line that writes no path');
  assert.equal(await call('Bash', { command: 'touch /elsewhere/x' }), undefined, 'a path outside the folders');
  assert.equal(await call('Write', { file_path: '/w/a', content: '' }, { mode: 'acceptEdits' }), undefined);
  assert.equal(await call('Read', { file_path: '/w/a' }, { refusal: 'rule' }), undefined, 'a non-Bash deny rule');
});
