/** `onFailure` in settings files, and how two PreToolUse asks rank (the dispatcher, without a session). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HookDispatcher } from '../../src/tools/hooks/dispatcher.ts';
import { callbackHook, clientHook } from '../../src/tools/hooks/callback.ts';
import { loadSettings } from '../../src/tools/hooks/settings.ts';
import type { HookCall, HookOutput } from '../../src/tools/hooks/types.ts';

const settings = (hook: Record<string, unknown>) =>
  JSON.stringify({
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'true', ...hook }] }] },
  });

test('settings: onFailure is "continue" or "block"; anything else names where it is', () => {
  assert.equal(loadSettings(settings({ onFailure: 'block' }), '/').hooks.PreToolUse?.[0]?.hooks[0]?.onFailure, 'block');
  assert.equal(loadSettings(settings({}), '/').hooks.PreToolUse?.[0]?.hooks[0]?.onFailure, undefined);
  assert.throws(
    () => loadSettings(settings({ onFailure: 'stop' }), '/'),
    /--settings: hooks\.PreToolUse\[0\]\.hooks\[0\]\.onFailure must be "continue" or "block"/,
  );
});

const call = (): HookCall => ({
  sessionId: 's',
  cwd: '/',
  permissionMode: 'default',
  signal: new AbortController().signal,
  emit: () => undefined,
  matchValue: 'Bash',
  toolUseId: 'toolu_1',
});
const ask = (reason: string): HookOutput => ({
  hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: reason },
});

test("between two asks, another hook's reason outranks the SDK client's own, whichever is first", async () => {
  for (const clientFirst of [true, false]) {
    const hooks = new HookDispatcher();
    const client = () =>
      hooks.addClientHooks({ PreToolUse: [{ hookCallbackIds: ['h'] }] }, () => Promise.resolve(ask('host')));
    const other = () =>
      hooks.add(
        'PreToolUse',
        'Bash',
        callbackHook(() => Promise.resolve(ask('policy')), 1000),
      );
    if (clientFirst) (client(), other());
    else (other(), client());
    const verdict = await hooks.run('PreToolUse', { tool_name: 'Bash' }, call());
    assert.deepEqual([verdict.permission, verdict.permissionReason], ['ask', 'policy'], `client first: ${clientFirst}`);
  }
});

test('a deny still outranks every ask, and a failing hook set to block counts as exit code 2', async () => {
  const hooks = new HookDispatcher();
  hooks.add(
    'PreToolUse',
    'Bash',
    clientHook('h', 1000, () => Promise.reject(new Error('down'))),
    'sdkHook',
    'callback',
    'block',
  );
  hooks.add(
    'PreToolUse',
    'Bash',
    callbackHook(() => Promise.resolve(ask('policy')), 1000),
  );
  const verdict = await hooks.run('PreToolUse', { tool_name: 'Bash' }, call());
  assert.equal(verdict.permission, 'deny');
  assert.equal(verdict.blockedStderr, 'failed; blocking because onFailure is "block"\ndown');
  assert.equal(verdict.failure?.reason, '[h]: failed; blocking because onFailure is "block"');
});

test('onFailure is ignored on Stop: a failing Stop hook blocks nothing, and is reported as failed', async () => {
  const hooks = new HookDispatcher();
  hooks.add(
    'Stop',
    undefined,
    callbackHook(() => Promise.reject(new Error('down')), 1000),
    'sessionHook',
    'callback',
    'block',
  );
  const verdict = await hooks.run('Stop', {}, call());
  assert.equal(verdict.block, undefined);
  assert.equal(verdict.failed, true);
});
