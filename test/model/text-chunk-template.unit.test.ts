import { test } from 'node:test';
import assert from 'node:assert/strict';
import type OpenAI from 'openai';
import { TextChunkTemplate } from '../../src/model/text-chunk-template.ts';
import { mutations } from './fake-servers.ts';

type Chunk = OpenAI.Chat.ChatCompletionChunk;

/** A template learnt from `base`: each chunk it reads must mean `base` with that text; `hit` says which it reads. */
function check(base: string, rows: Array<[string, boolean]>): void {
  const template = new TextChunkTemplate();
  template.learn(base, JSON.parse(base) as Chunk);
  for (const [data, hit] of rows) {
    // As given, and as a slice of a larger string, the kind the SSE parser hands out.
    for (const given of [data, `data: ${data}\n\n`.slice(6, -2)]) {
      const text = template.text(given);
      assert.equal(text !== undefined, hit, data);
      if (text === undefined) continue;
      const expected = JSON.parse(base) as Chunk;
      expected.choices[0]!.delta.content = text;
      assert.deepEqual(JSON.parse(data), expected, data);
    }
  }
}

const openai = (content: string, extra = '') =>
  `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp",` +
  `"choices":[{"index":0,"delta":{"content":${content}},"logprobs":null,"finish_reason":null}]${extra}}`;

test('a chunk in the learnt layout is read as the same chunk with its own text; any other shape is left to JSON.parse', () => {
  check(openai('"Hello"'), [
    [openai('"x"'), true],
    [openai('""'), true],
    [openai(JSON.stringify('quote " brace }]} backslash \\ newline \n "content":"no"')), true],
    [openai('"\\u00e9\\ud83d\\ude00 中"'), true],
    [openai('"a"},"x":{"y":"b"'), false],
    [openai('"a","refusal":"no"'), false],
    [openai('"a"  "b"'), false],
    [openai('null'), false],
    [openai('1'), false],
    [openai('"unterminated'), false],
    [openai('"x"', ',"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}'), false],
    [openai('"x"').replace('"finish_reason":null', '"finish_reason":"stop"'), false],
    [openai('"x"').replace('"chatcmpl-1"', '"chatcmpl-2"'), false],
    [`${openai('"x"')} `, false],
  ]);
});

test('layouts it cannot learn: a finish, usage, tool calls, reasoning, a refusal, an empty text, two choices', () => {
  const chunks = [
    openai('"x"').replace('"finish_reason":null', '"finish_reason":"stop"'),
    openai('"x"', ',"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}'),
    openai('"x","tool_calls":[{"index":0,"function":{"arguments":"{}"}}]'),
    openai('"x","reasoning_content":"hm"'),
    openai('"x","refusal":"no"'),
    openai('""'),
    openai('"x"').replace('"finish_reason":null}]', '"finish_reason":null},{"index":1,"delta":{"content":"y"}}]'),
  ];
  for (const base of chunks) {
    const template = new TextChunkTemplate();
    template.learn(base, JSON.parse(base) as Chunk);
    assert.equal(template.text(base), undefined, base);
  }
});

test('a "content" key elsewhere (in the id, in another object, twice) does not mislead it', () => {
  check(`{"id":"\\"content\\":\\"x","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`, [
    [`{"id":"\\"content\\":\\"x","choices":[{"index":0,"delta":{"content":"b"},"finish_reason":null}]}`, true],
  ]);
  check(`{"meta":{"content":"same"},"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`, [
    [`{"meta":{"content":"same"},"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":null}]}`, true],
    [`{"meta":{"content":"other"},"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`, false],
  ]);
  // JSON.parse keeps the last of two equal keys: so does the template.
  check(`{"choices":[{"index":0,"delta":{"content":"a","content":"b"},"finish_reason":null}]}`, [
    [`{"choices":[{"index":0,"delta":{"content":"a","content":"c"},"finish_reason":null}]}`, true],
    [`{"choices":[{"index":0,"delta":{"content":"c","content":"b"},"finish_reason":null}]}`, false],
  ]);
  // Whitespace around the colon, as some servers write it.
  check(`{"choices": [{"index": 0, "delta": {"role": "assistant", "content" : "a"}, "finish_reason": null}]}`, [
    [`{"choices": [{"index": 0, "delta": {"role": "assistant", "content" : "zz"}, "finish_reason": null}]}`, true],
  ]);
});

test('a server whose layout changes every chunk stops being learnt after a few', () => {
  const template = new TextChunkTemplate();
  const chunk = (i: number) =>
    `{"choices":[{"index":0,"delta":{"content":"t"},"finish_reason":null}],"obfuscation":"${'x'.repeat(i)}"}`;
  let hits = 0;
  for (let i = 0; i < 20; i++) {
    const data = chunk(i);
    if (template.text(data) !== undefined) hits++;
    else template.learn(data, JSON.parse(data) as Chunk);
  }
  assert.equal(hits, 0);
  // The fourth layout (chunk 3) was the last one learnt: it is still read; a new one is not learnt.
  assert.equal(template.text(chunk(3)), 't');
  template.learn(chunk(5), JSON.parse(chunk(5)) as Chunk);
  assert.equal(template.text(chunk(5)), undefined);
});

test('a chunk made to be costly to learn is not learnt: too large, or too many "content" keys before the text', () => {
  const many = Array.from({ length: 20 }, (_, i) => `"k${i}":{"content":"t"}`).join(',');
  const crowded = `{${many},"choices":[{"index":0,"delta":{"content":"t"},"finish_reason":null}]}`;
  const large = `{"pad":"${'x'.repeat(20_000)}","choices":[{"index":0,"delta":{"content":"t"},"finish_reason":null}]}`;
  for (const data of [crowded, large]) {
    const template = new TextChunkTemplate();
    template.learn(data, JSON.parse(data) as Chunk);
    assert.equal(template.text(data), undefined);
  }
  // The same layout with few keys is learnt.
  const few = `{"k":{"content":"t"},"choices":[{"index":0,"delta":{"content":"t"},"finish_reason":null}]}`;
  const template = new TextChunkTemplate();
  template.learn(few, JSON.parse(few) as Chunk);
  assert.equal(template.text(few.replace('"content":"t"},"f', '"content":"u"},"f')), 'u');
});

test('the learnt layout against 10,000 edited chunks (a hostile server): JSON.parse agrees with all it reads', () => {
  let read = 0;
  [openai('"Hello"'), openai('"a \\"q\\" \\u00e9 }]}"')].forEach((base, seed) => {
    const template = new TextChunkTemplate();
    template.learn(base, JSON.parse(base) as Chunk);
    for (const data of mutations(base, 5000, seed + 1)) {
      const text = template.text(`data: ${data}\n\n`.slice(6, -2));
      if (text === undefined) continue;
      read++;
      const expected = JSON.parse(base) as Chunk;
      expected.choices[0]!.delta.content = text;
      assert.deepEqual(JSON.parse(data), expected, data);
    }
  });
  // Edits inside the text keep a text chunk: the template was used, not only refused (the seeds fix the count).
  assert.ok(read >= 100, `${read} of 10,000 read by the template`);
});
