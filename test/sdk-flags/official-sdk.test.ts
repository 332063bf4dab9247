/** The official Claude Agent SDK passes its options as flags (`--effort=high`, `--agent=x`, ...): agentpipe honours them without warnings. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { tempDir } from '../helpers/workspace.ts';
import { sdkOptions } from '../sdk/helpers.ts';

test('effort, thinking, agent (from initialize), settingSources, additionalDirectories, fallbackModel and debugFile from the official SDK', async () => {
  const extra = tempDir();
  const options = sdkOptions([{ text: 'done' }]);
  mkdirSync(path.join(options.cwd, '.agentpipe'));
  writeFileSync(path.join(options.cwd, '.agentpipe', 'settings.json'), JSON.stringify({ permissions: { deny: ['Grep'] } }));
  const debugFile = path.join(options.cwd, 'debug.log');
  const messages: SDKMessage[] = [];
  for await (const message of query({
    prompt: 'hi',
    options: {
      ...options, effort: 'high', thinking: { type: 'adaptive' }, fallbackModel: 'backup-model', additionalDirectories: [extra],
      settingSources: ['project'], agents: { helper: { description: 'Helps', prompt: 'You help.', tools: ['Read', 'Grep', 'Glob'] } }, agent: 'helper',
      debugFile, allowDangerouslySkipPermissions: true, permissionMode: 'bypassPermissions',
    },
  })) messages.push(message);
  const init = messages.find((m) => m.type === 'system' && m.subtype === 'init');
  assert.ok(init && init.type === 'system' && init.subtype === 'init');
  assert.equal(init.effort, 'high');
  assert.deepEqual([...init.tools].sort(), ['Glob', 'Read'], 'the agent\'s tools, minus the project settings\' deny');
  const result = messages.at(-1)!;
  assert.ok(result.type === 'result' && result.subtype === 'success');
  assert.doesNotMatch(options.stderrText(), /not supported yet/);
  assert.match(readFileSync(debugFile, 'utf8'), /\[api\] request: model scripted, 1 messages, tools \[Glob, Read\], effort high, thinking adaptive/);
});
