/**
 * Claude Code 2.1.332's model table (src/model/claude-models.ts): aliases and retired models resolve as it resolves
 * them, `/model`'s label, the rows of `supportedModels()`. The rows themselves are compared with the real CLI's in the
 * differential suite (sdk/supported-models-*, sdk/supported-commands-and-models).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  claudeModelRows,
  isClaudeAlias,
  modelRows,
  modelSwitchLabel,
  resolveClaudeModel,
} from '../../src/model/claude-models.ts';
import { anthropicModel } from '../../src/model/resolve.ts';

test('aliases and retired models resolve as Claude Code 2.1.332 resolves them; other ids stay as given', () => {
  const cases: Array<[string, string]> = [
    ['default', 'claude-opus-5-5'],
    ['opus', 'claude-opus-5-5'],
    ['OPUS', 'claude-opus-5-5'],
    ['opus[1m]', 'claude-opus-5-5'],
    ['best', 'claude-opus-5-5'],
    ['sonnet', 'claude-sonnet-5-5'],
    ['sonnet[1m]', 'claude-sonnet-5-5'],
    ['opusplan', 'claude-sonnet-5-5'],
    ['haiku', 'claude-haiku-5-5'],
    ['fable', 'claude-fable-5-2'],
    ['claude-opus-4-1', 'claude-opus-5-5'],
    ['claude-opus-4-0', 'claude-opus-5-5'],
    ['claude-sonnet-4-6', 'claude-sonnet-4-6'],
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5-20250929'],
    ['gpt-4o', 'gpt-4o'],
  ];
  assert.deepEqual(
    cases.map(([name]) => [name, resolveClaudeModel(name)]),
    cases,
  );
  assert.equal(isClaudeAlias('sonnet[1m]'), true);
  assert.equal(isClaudeAlias('claude-opus-4-1'), false);
  // A session on the Anthropic API starts on the resolved model; none given: agentpipe's default.
  assert.equal(anthropicModel('opus'), 'claude-opus-5-5');
  assert.equal(anthropicModel(undefined), 'claude-sonnet-4-6');
});

test("/model's label: the model and what it resolves to, default by its model", () => {
  assert.equal(modelSwitchLabel('claude-opus-4-1'), 'claude-opus-4-1 (claude-opus-5-5)');
  assert.equal(modelSwitchLabel('sonnet[1m]'), 'sonnet[1m] (claude-sonnet-5-5)');
  assert.equal(modelSwitchLabel('default'), 'claude-opus-5-5');
  assert.equal(modelSwitchLabel(null), 'claude-opus-5-5');
  assert.equal(modelSwitchLabel('claude-sonnet-4-6'), 'claude-sonnet-4-6');
});

test('supportedModels(): the five alias rows, and a row of its own for a model no alias covers', () => {
  const values = (current: string) => claudeModelRows(current).map((row) => row.value);
  const aliases = ['default', 'opus', 'fable', 'sonnet', 'haiku'];
  // Covered: an alias, a model an alias resolves to, a retired model run as its family's.
  for (const current of ['opus', 'sonnet[1m]', 'claude-sonnet-5-5', 'claude-opus-4-1', 'default'])
    assert.deepEqual(values(current), aliases, current);
  assert.deepEqual(values('claude-sonnet-4-6'), [...aliases, 'claude-sonnet-4-6']);
  // An earlier Fable goes right after the fable row.
  assert.deepEqual(values('claude-fable-5-1'), ['default', 'opus', 'fable', 'claude-fable-5-1', 'sonnet', 'haiku']);
  const older = claudeModelRows('claude-haiku-4-5').at(-1);
  assert.deepEqual(older, {
    value: 'claude-haiku-4-5',
    resolvedModel: 'claude-haiku-4-5',
    displayName: 'Haiku 4.5',
    description: 'Newer version available · select Haiku for Haiku 5.5',
    supportsThinkingOff: true,
  });
  assert.equal(claudeModelRows('claude-sonnet-4-6[1m]').at(-1)?.displayName, 'Sonnet 4.6 (1M context)');
  assert.equal(claudeModelRows('gpt-4o').at(-1)?.description, 'Custom model');
  // Each call gets its own rows: a caller's change does not reach the next session's answer.
  claudeModelRows('opus')[0]!.description = 'changed';
  assert.notEqual(claudeModelRows('opus')[0]!.description, 'changed');
});

test('another provider lists its own models, the current one first, without Claude capabilities', () => {
  assert.deepEqual(modelRows('scripted', 'scripted'), [
    { value: 'scripted', resolvedModel: 'scripted', displayName: 'scripted', description: 'Current model' },
  ]);
  const rows = modelRows('openai-compatible', 'qwen3:8b', ['gpt-4o', 'qwen3:8b']);
  assert.deepEqual(
    rows.map((r) => [r.value, r.description]),
    [
      ['qwen3:8b', 'Current model'],
      ['gpt-4o', 'Custom model'],
    ],
  );
  assert.equal(modelRows('anthropic', 'claude-sonnet-4-6').length, 6);
});
