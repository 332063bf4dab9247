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
  // permissions/plan-bash, sdk/plan-mode: behind a gateway, plan mode's Bash check (Claude Code's server-side one) is
  // unavailable; the call is refused without asking, canUseTool or not.
  const plan = await call('Bash', { command: 'touch x' }, { refusal: 'mode', mode: 'plan', gatewayHost: 'gw:8080' });
  assert.match(plan!.message, /^Auto mode is unavailable: its safety check does not run for this session, so Bash/);
  assert.deepEqual(
    [plan!.reason, plan!.reasonType, plan!.code],
    ['Classifier unavailable', 'classifier', 'auto_mode_no_check_in_session'],
  );
  assert.deepEqual(plan!.how, {
    permission_decision: { decision: 'reject', source: 'config', reason_type: 'classifier' },
    non_execution_kind: 'automode-unavailable',
  });
  assert.equal(plan!.notice?.tag, 'auto_mode_no_server_check');
  assert.match(plan!.notice!.content, /your requests go through gw:8080, which doesn't pass it through/);
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
  // On Anthropic's own API Claude Code runs its check, which agentpipe does not have: agentpipe's words.
  assert.equal(await call('Bash', { command: 'touch x' }, { refusal: 'mode', mode: 'plan' }), undefined);
  assert.equal(await call('Read', { file_path: '/w/a' }, { refusal: 'rule' }), undefined, 'a non-Bash deny rule');
});
