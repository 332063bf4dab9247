/** Custom tools from defineTool, run by a library-built session with the scripted model. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { defineTool } from '../../src/index.ts';
import { runLibrarySession } from './library-session.ts';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const weather = defineTool('get_weather', {
  description: 'Weather of a city',
  parameters: z.object({ city: z.string(), days: z.number().int().min(1).max(7).optional() }),
  readOnly: true,
  handler: async ({ city, days }: { city: string; days?: number }) => `Sunny in ${city} for ${days ?? 1} day(s)`,
});

test('a zod-defined tool is offered with its JSON Schema and returns a string', async () => {
  const { requests, toolResults, result } = await runLibrarySession({ extraTools: [weather] }, [
    { tool_calls: [{ name: 'get_weather', input: { city: 'Oslo', days: 3 } }] },
    { text: 'done' },
  ]);
  const spec = requests[0].tools.find((t) => t.name === 'get_weather')!;
  assert.equal(spec.description, 'Weather of a city');
  assert.deepEqual((spec.input_schema as any).required, ['city']);
  assert.equal((spec.input_schema as any).properties.city.type, 'string');
  assert.equal(toolResults[0].content, 'Sunny in Oslo for 3 day(s)');
  assert.notEqual(toolResults[0].is_error, true);
  assert.equal(result.subtype, 'success');
});

test('input that does not fit the zod schema is a clear is_error result; the handler does not run', async () => {
  let ran = false;
  const tool = defineTool('strict', {
    description: 'x',
    readOnly: true,
    parameters: z.object({ count: z.number() }),
    handler: () => ((ran = true), 'ran'),
  });
  const { toolResults } = await runLibrarySession({ extraTools: [tool] }, [
    { tool_calls: [{ name: 'strict', input: { count: 'three' } }] },
    { text: 'ok' },
  ]);
  assert.equal(toolResults[0].is_error, true);
  assert.match(toolResults[0].content, /^Invalid input for strict: count: .*number/);
  assert.equal(ran, false);
});

test('a JSON Schema tool validates its input too', async () => {
  const tool = defineTool('echo_json', {
    description: 'Echoes',
    readOnly: true,
    parameters: {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
      additionalProperties: false,
    },
    handler: (input: { text: string }) => input.text.toUpperCase(),
  });
  const { toolResults, requests } = await runLibrarySession({ extraTools: [tool] }, [
    {
      tool_calls: [
        { name: 'echo_json', id: 'toolu_good', input: { text: 'hi' } },
        { name: 'echo_json', id: 'toolu_bad', input: { other: 1 } },
      ],
    },
    { text: 'ok' },
  ]);
  assert.deepEqual(requests[0].tools.find((t) => t.name === 'echo_json')!.input_schema.required, ['text']);
  const good = toolResults.find((r) => r.tool_use_id === 'toolu_good')!;
  const bad = toolResults.find((r) => r.tool_use_id === 'toolu_bad')!;
  assert.equal(good.content, 'HI');
  assert.equal(bad.is_error, true);
  assert.match(bad.content, /Invalid input for echo_json: .*(required property 'text'|additional properties)/);
});

test('binary results reach the model as image blocks; sessionLog stays out of its context; telemetry is in the completion', async () => {
  const chart = defineTool('chart', {
    description: 'Draws a chart',
    readOnly: true,
    handler: () => ({
      textResultForLlm: 'Here is the chart',
      binaryResultsForLlm: [{ data: PNG, mimeType: 'image/png', type: 'image', description: 'a 1x1 chart' }],
      resultType: 'success',
      sessionLog: 'SECRET-LOG: rendered with 3 series',
      toolTelemetry: { series: 3, renderMs: 12 },
    }),
  });
  const { toolResults, requests } = await runLibrarySession({ extraTools: [chart] }, [
    { tool_calls: [{ name: 'chart', input: {} }] },
    { text: 'nice' },
  ]);
  const [r] = toolResults;
  assert.deepEqual(r.content, [
    { type: 'text', text: 'Here is the chart' },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
  ]);
  assert.equal(r.tool_use_result.sessionLog, 'SECRET-LOG: rendered with 3 series');
  assert.deepEqual(r.tool_use_result.toolTelemetry, { series: 3, renderMs: 12 });
  assert.equal(r.tool_use_result.resultType, 'success');
  const secondRequest = JSON.stringify(requests[1].messages);
  assert.ok(secondRequest.includes(PNG), 'the model got the image');
  assert.ok(!secondRequest.includes('SECRET-LOG'), 'the model never sees sessionLog');
});

test('rejected and denied results count as permission denials; failure is only an error', async () => {
  const guard = defineTool('guarded', {
    description: 'Refuses some inputs',
    readOnly: true,
    parameters: z.object({ mode: z.enum(['rejected', 'denied', 'failure']) }),
    handler: ({ mode }: { mode: 'rejected' | 'denied' | 'failure' }) => ({
      resultType: mode,
      error: `${mode} by policy`,
    }),
  });
  const { toolResults, result } = await runLibrarySession({ extraTools: [guard] }, [
    {
      tool_calls: [
        { name: 'guarded', input: { mode: 'rejected' }, id: 'toolu_rej' },
        { name: 'guarded', input: { mode: 'denied' }, id: 'toolu_den' },
        { name: 'guarded', input: { mode: 'failure' }, id: 'toolu_fail' },
      ],
    },
    { text: 'ok' },
  ]);
  assert.deepEqual(
    toolResults.map((r) => [r.is_error, r.content]),
    [
      [true, 'rejected by policy'],
      [true, 'denied by policy'],
      [true, 'failure by policy'],
    ],
  );
  assert.deepEqual(
    result.permission_denials.map((d: any) => [d.tool_name, d.tool_use_id]),
    [
      ['guarded', 'toolu_rej'],
      ['guarded', 'toolu_den'],
    ],
  );
  assert.equal(result.subtype, 'success');
});

test('a handler that throws becomes an is_error result; the signal reaches the handler', async () => {
  let sawSignal = false;
  const boom = defineTool('boom', {
    description: 'Fails',
    readOnly: true,
    handler: (_input, { signal, toolUseId }) => {
      sawSignal = signal instanceof AbortSignal && toolUseId.length > 0;
      throw new Error('disk on fire');
    },
  });
  const { toolResults, result } = await runLibrarySession({ extraTools: [boom] }, [
    { tool_calls: [{ name: 'boom', input: {} }] },
    { text: 'ok' },
  ]);
  assert.equal(toolResults[0].is_error, true);
  assert.match(toolResults[0].content, /boom failed: disk on fire/);
  assert.ok(sawSignal);
  assert.equal(result.subtype, 'success');
});

test('defineTool refuses bad names and handlers at definition time', () => {
  assert.throws(() => defineTool('bad name', { description: 'x', handler: () => '' }), /invalid tool name/);
  assert.throws(() => defineTool('ok', { description: 'x' } as never), /handler must be a function/);
  assert.throws(
    () => defineTool('ok', { description: 'x', parameters: 'nope', handler: () => '' }),
    /zod schema or a JSON Schema/,
  );
});
