/**
 * The official Claude Agent SDK's `sandbox` option reaches agentpipe inside `--settings` (the SDK
 * adds `failIfUnavailable: true` to `enabled: true`); a `--settings` sandbox block written by hand
 * drives the same behaviour: on, a write outside the folder fails even in bypassPermissions; off
 * (`enabled: false`), it goes through; required but unavailable, the query ends in an error result.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { query, type Options, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { sdkOptions } from '../sdk/helpers.ts';

async function attempt(sandboxOptions: Partial<Options>) {
  const options = sdkOptions([], {});
  const outside = path.join(path.dirname(options.cwd), `outside-${path.basename(options.cwd)}`);
  mkdirSync(outside);
  const target = path.join(outside, 'written.txt');
  const { writeScript } = await import('../helpers/workspace.ts');
  const script = writeScript(options.cwd, [
    { tool_calls: [{ name: 'Bash', input: { command: `echo x > ${target}` } }] },
    { text: 'done' },
  ]);
  const messages: SDKMessage[] = [];
  for await (const message of query({
    prompt: 'write it',
    options: {
      ...options,
      extraArgs: { script },
      permissionMode: 'bypassPermissions',
      allowDangerouslySkipPermissions: true,
      ...sandboxOptions,
    },
  }))
    messages.push(message);
  const written = existsSync(target);
  rmSync(outside, { recursive: true, force: true });
  return { written, result: messages.at(-1)!, stderr: options.stderrText() };
}

test("the SDK's sandbox option and a --settings sandbox block confine the same way", async () => {
  const viaOption = await attempt({ sandbox: { enabled: true } });
  const viaSettings = await attempt({ settings: { sandbox: { enabled: true, failIfUnavailable: true } } });
  for (const run of [viaOption, viaSettings]) {
    assert.equal(run.written, false, run.stderr);
    assert.ok(run.result.type === 'result' && run.result.subtype === 'success', run.stderr);
  }
  const offByOption = await attempt({ sandbox: { enabled: false } });
  const offBySettings = await attempt({ settings: { sandbox: { enabled: false } } });
  assert.equal(offByOption.written, true, offByOption.stderr);
  assert.equal(offBySettings.written, true, offBySettings.stderr);
});

test('the SDK asking for a sandbox that cannot start gets an error result (sandbox_required_unavailable)', async () => {
  // The SDK turns the error result of a start-up failure into a thrown error carrying its text.
  await assert.rejects(
    attempt({ sandbox: { enabled: true, bwrapPath: '/nonexistent/bwrap' } }),
    /returned an error result: the sandbox is required .*bwrapPath \/nonexistent\/bwrap is not an executable/,
  );
});

test("the SDK's sandbox option carries credentials.envVars: a masked variable is a placeholder inside, a denied one unset", async () => {
  const secret = 'sdk-secret-value-0123456789';
  const options = sdkOptions(
    [
      { tool_calls: [{ name: 'Bash', input: { command: 'echo "m=$AP_MASKED d=${AP_DENIED-unset}"' } }] },
      { text: 'done' },
    ],
    {},
  );
  const messages: SDKMessage[] = [];
  for await (const message of query({
    prompt: 'show them',
    options: {
      ...options,
      env: { ...options.env, AP_MASKED: secret, AP_DENIED: secret },
      permissionMode: 'bypassPermissions',
      allowDangerouslySkipPermissions: true,
      sandbox: {
        enabled: true,
        credentials: {
          envVars: [
            { name: 'AP_MASKED', mode: 'mask', injectHosts: ['api.example.com'] },
            { name: 'AP_DENIED', mode: 'deny' },
          ],
        },
      },
    },
  }))
    messages.push(message);
  const text = JSON.stringify(messages);
  assert.match(text, /m=agentpipe_credential_AP_MASKED_[0-9a-f]{32} d=unset/, options.stderrText());
  assert.ok(!text.includes(secret), 'the value reaches nothing the client sees');
  const result = messages.at(-1);
  assert.ok(result?.type === 'result' && result.subtype === 'success');
});
