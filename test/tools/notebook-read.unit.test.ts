/**
 * Read of a Jupyter notebook renders its cells as Claude Code 2.1 does (the expected text below
 * is what Claude Code 2.1.197 answered for test/fixtures/notebooks/outputs.ipynb), and its
 * `tool_use_result` is the SDK's `{ type: 'notebook', file: { filePath, cells } }`.
 */
import { ToolState } from '../../src/tools/state.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readTool } from '../../src/tools/builtin/read.ts';
import type { ToolContext } from '../../src/tools/types.ts';
import { ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';

const FIXTURE = readFileSync(path.join(ROOT, 'test/fixtures/notebooks/outputs.ipynb'), 'utf8');
const ctx = (cwd: string): ToolContext => ({
  cwd,
  signal: new AbortController().signal,
  sessionId: 's',
  toolUseId: 't',
  state: new ToolState(),
});

test('a notebook reads as its cells and outputs, in one text block, as Claude Code renders it', async () => {
  const dir = tempDir({ 'n.ipynb': FIXTURE });
  const result = await readTool.call({ file_path: 'n.ipynb' }, ctx(dir));
  assert.equal(result.isError, undefined);
  assert.deepEqual(result.content, [
    {
      type: 'text',
      text:
        '<cell id="md1"><cell_type>markdown</cell_type># Title\nSome text</cell id="md1">\n' +
        '<cell id="c1">print(\'hello\')</cell id="c1">\n\nhello\n\n' +
        '<cell id="c2">6*7</cell id="c2">\n\n42\n' +
        '<cell id="c3">1/0</cell id="c3">\n\nZeroDivisionError: division by zero\n\u001b[0;31m---\u001b[0m\n' +
        'ZeroDivisionError: division by zero\n' +
        '<cell id="c4"></cell id="c4">\n' +
        '<cell id="cell-5"><cell_type>raw</cell_type>raw stuff</cell id="cell-5">',
    },
  ]);
  assert.deepEqual(result.data, {
    type: 'notebook',
    file: {
      // The path as the model gave it, as Claude Code gives it.
      filePath: 'n.ipynb',
      cells: [
        { cellType: 'markdown', source: '# Title\nSome text', cell_id: 'md1' },
        {
          cellType: 'code',
          source: "print('hello')",
          execution_count: 1,
          cell_id: 'c1',
          language: 'python',
          outputs: [{ output_type: 'stream', text: 'hello\n' }],
        },
        {
          cellType: 'code',
          source: '6*7',
          execution_count: 2,
          cell_id: 'c2',
          language: 'python',
          outputs: [{ output_type: 'execute_result', text: '42' }],
        },
        {
          cellType: 'code',
          source: '1/0',
          execution_count: 3,
          cell_id: 'c3',
          language: 'python',
          outputs: [
            {
              output_type: 'error',
              text:
                'ZeroDivisionError: division by zero\n\u001b[0;31m---\u001b[0m\n' +
                'ZeroDivisionError: division by zero',
            },
          ],
        },
        { cellType: 'code', source: '', cell_id: 'c4', language: 'python' },
        { cellType: 'raw', source: 'raw stuff', cell_id: 'cell-5' },
      ],
    },
  });
});

test('a notebook in another language tags its code cells; an image output is an image block between texts', async () => {
  const png = 'iVBORw0KGgo=';
  const notebook = {
    metadata: { language_info: { name: 'julia' } },
    nbformat: 4,
    nbformat_minor: 5,
    cells: [
      {
        cell_type: 'code',
        id: 'plot',
        execution_count: 1,
        metadata: {},
        source: 'plot(x)',
        outputs: [
          { output_type: 'display_data', data: { 'image/png': `${png}\n`, 'text/plain': 'Plot' }, metadata: {} },
        ],
      },
      { cell_type: 'markdown', id: 'after', metadata: {}, source: 'done' },
    ],
  };
  const dir = tempDir({ 'j.ipynb': JSON.stringify(notebook) });
  const result = await readTool.call({ file_path: 'j.ipynb' }, ctx(dir));
  assert.deepEqual(result.content, [
    { type: 'text', text: '<cell id="plot"><language>julia</language>plot(x)</cell id="plot">\n\nPlot' },
    { type: 'image', source: { type: 'base64', data: png, media_type: 'image/png' } },
    { type: 'text', text: '<cell id="after"><cell_type>markdown</cell_type>done</cell id="after">' },
  ]);
});

test('outputs over 10,000 characters are replaced by a note; a broken notebook is an error in its words', async () => {
  const big = {
    cells: [
      { cell_type: 'code', metadata: {}, source: 'x', outputs: [{ output_type: 'stream', text: 'y'.repeat(10_001) }] },
    ],
  };
  const dir = tempDir({ 'big.ipynb': JSON.stringify(big), 'broken.ipynb': '{"cells": [' });
  const result = await readTool.call({ file_path: 'big.ipynb' }, ctx(dir));
  assert.deepEqual(result.content, [
    {
      type: 'text',
      text:
        '<cell id="cell-0">x</cell id="cell-0">\n\nOutputs are too large to include. Use Bash with: cat ' +
        "<notebook_path> | jq '.cells[0].outputs'",
    },
  ]);
  const broken = await readTool.call({ file_path: 'broken.ipynb' }, ctx(dir));
  assert.equal(broken.isError, true);
  assert.match(
    String(broken.content),
    /^Notebook file is not valid JSON \(it may be truncated, corrupted, or still being written\): /,
  );
});
