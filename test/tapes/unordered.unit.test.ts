/**
 * What a wrapped CLI sends in no fixed order: the Gemini CLI's skill list (found by glob(), in another order each run)
 * is compared sorted, in its system instruction and in the `activate_skill` tool; another set of skills, or the same
 * reordering anywhere else, is still a difference. Through the replay proxy too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inOrderGemini, sortSkillBlocks } from '../../src/harness/tape-unordered.ts';
import { startTapeProxy } from '../../src/harness/tape-proxy.ts';
import type { HttpLine } from '../../src/model/tape/format.ts';

/** One entry as the Gemini CLI renders it (its renderAgentSkills). */
const skill = (name: string) =>
  [
    '  <skill>',
    `    <name>${name}</name>`,
    `    <description>Use ${name}.</description>`,
    `    <location>/b/${name}/SKILL.md</location>`,
    '  </skill>',
  ].join('\n');
const system = (names: string[]) =>
  ['# Skills', '', '<available_skills>', ...names.map(skill), '</available_skills>', '', '# Hook Context'].join('\n');

/** A request of the Gemini CLI listing `names` in that order. */
function geminiBody(names: string[], prompt = 'say hi') {
  return {
    contents: [{ role: 'user', parts: [{ text: prompt }] }],
    systemInstruction: { role: 'user', parts: [{ text: system(names) }] },
    tools: [
      {
        functionDeclarations: [
          { name: 'read_file', description: 'Reads (Available: always).', parametersJsonSchema: { type: 'object' } },
          {
            name: 'activate_skill',
            description: `Activates a skill by name (Available: ${names.map((n) => `'${n}'`).join(', ')}). Returns it.`,
            parametersJsonSchema: {
              type: 'object',
              properties: { name: { type: 'string', enum: names, description: 'The name of the skill to activate.' } },
              required: ['name'],
            },
          },
        ],
      },
    ],
  };
}

test("the Gemini CLI's skill list compares sorted: the system instruction, the activate_skill description and enum", () => {
  assert.deepEqual(
    inOrderGemini(geminiBody(['skill-creator', 'antigravity-support'])),
    inOrderGemini(geminiBody(['antigravity-support', 'skill-creator'])),
  );
  const sorted = inOrderGemini(geminiBody(['c', 'a', 'b'])) as ReturnType<typeof geminiBody>;
  assert.equal(sorted.systemInstruction.parts[0]!.text, system(['a', 'b', 'c']));
  const declaration = sorted.tools[0]!.functionDeclarations[1]!;
  assert.equal(declaration.description, "Activates a skill by name (Available: 'a', 'b', 'c'). Returns it.");
  assert.deepEqual(declaration.parametersJsonSchema.properties!.name.enum, ['a', 'b', 'c']);
  assert.deepEqual(sorted.contents, geminiBody([]).contents, 'the conversation as it was');
  assert.notDeepEqual(
    inOrderGemini(geminiBody(['a', 'b'])),
    inOrderGemini(geminiBody(['a', 'c'])),
    'another set of skills is a difference',
  );
});

test('nothing else is reordered: a list in a prompt, an enum of another tool, a block of another form', () => {
  const prompt = `please look at\n<available_skills>\n${skill('b')}\nnot a skill\n${skill('a')}\n</available_skills>`;
  assert.equal(sortSkillBlocks(prompt), prompt, 'a block with other text in it stays as it is');
  const body = geminiBody(['b', 'a']);
  body.tools[0]!.functionDeclarations[1]!.name = 'other_tool';
  const other = inOrderGemini(body) as typeof body;
  assert.deepEqual(other.tools, body.tools, 'only the activate_skill declaration is sorted');
  assert.equal(sortSkillBlocks('no skills here'), 'no skills here');
});

test('a replay through the proxy answers a Gemini request whose skills come in another order', async () => {
  const recorded: HttpLine = {
    type: 'http',
    n: 1,
    api: 'gemini',
    method: 'POST',
    path: '/v1beta/models/g:streamGenerateContent?alt=sse',
    request: geminiBody(['skill-creator', 'antigravity-support']),
    status: 200,
    content_type: 'text/event-stream',
    chunks: [[0, 'data: {"candidates":[]}\n\n']],
  };
  const misses: string[] = [];
  const proxy = await startTapeProxy({
    mode: 'replay',
    basePath: '/v1beta',
    lines: [recorded, { ...recorded, n: 2 }],
    file: 'gemini.tape.jsonl',
    onMismatch: (text) => (misses.push(text), text),
  });
  try {
    const ask = (body: unknown) =>
      fetch(`${proxy.url}/models/g:streamGenerateContent?alt=sse`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const served = await ask(geminiBody(['antigravity-support', 'skill-creator']));
    assert.equal(served.status, 200);
    assert.equal(await served.text(), 'data: {"candidates":[]}\n\n');
    const changed = await ask(geminiBody(['antigravity-support', 'skill-creator'], 'say bye'));
    assert.equal(changed.status, 400);
    assert.equal(misses.length, 1);
    assert.match(misses[0]!, /first difference at body\.contents\[0\]\.parts\[0\]\.text:\n  tape:     "say hi"/);
  } finally {
    await proxy.close();
  }
});
