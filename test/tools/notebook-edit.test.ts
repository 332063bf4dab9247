/**
 * NotebookEdit: replace, insert and delete one cell by id (or cell-N), the read-before-edit rule,
 * checked notebook JSON, and end to end through the scripted model (the SDK's NotebookEditOutput
 * in `tool_use_result`, acceptEdits, a protected folder).
 */
import { ToolState } from '../../src/tools/state.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { notebookEditTool } from '../../src/tools/builtin/notebook-edit.ts';
import { readTool } from '../../src/tools/builtin/read.ts';
import { recordRead } from '../../src/tools/read-state.ts';
import type { ToolContext } from '../../src/tools/types.ts';
import { ofType, runInProcess, runScripted, toolResults } from '../helpers/agent-run.ts';
import { tempDir } from '../helpers/workspace.ts';

const NOTEBOOK = {
  cells: [
    { cell_type: 'markdown', id: 'intro', metadata: {}, source: ['# Title\n', 'text'] },
    {
      cell_type: 'code',
      id: 'load',
      metadata: { tags: ['x'] },
      source: 'import pandas as pd',
      execution_count: 3,
      outputs: [{ output_type: 'stream', name: 'stdout', text: 'ok' }],
    },
    { cell_type: 'code', id: 'plot', metadata: {}, source: 'df.plot()', execution_count: 4, outputs: [] },
  ],
  metadata: { kernelspec: { name: 'python3' }, language_info: { name: 'python' } },
  nbformat: 4,
  nbformat_minor: 5,
};
const notebookText = `${JSON.stringify(NOTEBOOK, null, 1)}\n`;

const dir = tempDir();
const ctx = (): ToolContext => ({
  cwd: dir,
  signal: new AbortController().signal,
  sessionId: 's',
  toolUseId: 't',
  state: new ToolState(),
});
const fresh = (name: string, text = notebookText) => {
  writeFileSync(path.join(dir, name), text);
  return name;
};
const load = (name: string) =>
  JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as typeof NOTEBOOK & { cells: Array<Record<string, unknown>> };

test('replace changes one cell (outputs of a code cell cleared), keeps the rest, and returns NotebookEditOutput', async () => {
  const name = fresh('replace.ipynb');
  const session = ctx();
  await readTool.call({ file_path: name }, session);
  const result = await notebookEditTool.call(
    { notebook_path: name, cell_id: 'load', new_source: 'import numpy as np' },
    session,
  );
  assert.equal(result.isError, undefined);
  assert.equal(result.content, 'Updated cell load with import numpy as np');
  const after = load(name);
  assert.deepEqual(after.cells[1], {
    cell_type: 'code',
    id: 'load',
    metadata: { tags: ['x'] },
    source: 'import numpy as np',
    execution_count: null,
    outputs: [],
  });
  assert.deepEqual(after.cells[0], NOTEBOOK.cells[0]);
  assert.deepEqual(after.metadata, NOTEBOOK.metadata);
  const updated = readFileSync(path.join(dir, name), 'utf8');
  assert.deepEqual(result.data, {
    new_source: 'import numpy as np',
    old_source: 'import pandas as pd',
    cell_id: 'load',
    cell_type: 'code',
    language: 'python',
    edit_mode: 'replace',
    error: '',
    notebook_path: path.join(dir, name),
    original_file: notebookText,
    updated_file: updated,
  });
  // Its own write counts as read: a second edit needs no new Read.
  const again = await notebookEditTool.call(
    { notebook_path: name, cell_id: 'intro', new_source: '# New', cell_type: 'markdown' },
    session,
  );
  assert.equal(again.isError, undefined);
  assert.equal(load(name).cells[0]!.source, '# New');
});

test('replace can change the cell type; cell-N addresses a cell by index', async () => {
  const name = fresh('type.ipynb');
  const session = ctx();
  await readTool.call({ file_path: name }, session);
  const result = await notebookEditTool.call(
    { notebook_path: name, cell_id: 'cell-2', new_source: 'A note', cell_type: 'markdown' },
    session,
  );
  assert.equal(result.isError, undefined);
  assert.deepEqual(load(name).cells[2], { cell_type: 'markdown', id: 'plot', metadata: {}, source: 'A note' });
  assert.equal((result.data as { cell_type: string }).cell_type, 'markdown');
});

test('insert adds a cell after cell_id (with a fresh id on nbformat 4.5), or first without one; delete removes it', async () => {
  const name = fresh('insert.ipynb');
  const session = ctx();
  await readTool.call({ file_path: name }, session);
  const inserted = await notebookEditTool.call(
    {
      notebook_path: name,
      cell_id: 'load',
      new_source: 'df = pd.read_csv("x")',
      cell_type: 'code',
      edit_mode: 'insert',
    },
    session,
  );
  assert.equal(inserted.isError, undefined);
  const cells = load(name).cells;
  assert.deepEqual(
    cells.map((c) => c.source),
    [['# Title\n', 'text'], 'import pandas as pd', 'df = pd.read_csv("x")', 'df.plot()'],
  );
  const id = cells[2]!.id as string;
  assert.match(id, /^[0-9a-f]{12}$/);
  assert.deepEqual(cells[2], {
    cell_type: 'code',
    id,
    metadata: {},
    source: 'df = pd.read_csv("x")',
    execution_count: null,
    outputs: [],
  });
  assert.equal(inserted.content, `Inserted cell ${id} with df = pd.read_csv("x")`);
  assert.equal((inserted.data as { cell_id: string }).cell_id, id);
  assert.equal((inserted.data as { edit_mode: string }).edit_mode, 'insert');
  const first = await notebookEditTool.call(
    { notebook_path: name, new_source: 'Intro', cell_type: 'markdown', edit_mode: 'insert' },
    session,
  );
  assert.equal(first.isError, undefined);
  assert.equal(load(name).cells[0]!.source, 'Intro');
  const deleted = await notebookEditTool.call(
    { notebook_path: name, cell_id: 'plot', new_source: '', edit_mode: 'delete' },
    session,
  );
  assert.equal(deleted.content, 'Deleted cell plot');
  assert.equal((deleted.data as { old_source: string }).old_source, 'df.plot()');
  assert.deepEqual(
    load(name)
      .cells.map((c) => c.id)
      .slice(1),
    ['intro', 'load', id],
  );
});

test('an older notebook (nbformat 4.4) gets no cell ids', async () => {
  const name = fresh(
    'old.ipynb',
    JSON.stringify({
      ...NOTEBOOK,
      nbformat_minor: 4,
      cells: [{ cell_type: 'code', metadata: {}, source: 'x', outputs: [], execution_count: null }],
    }),
  );
  const session = ctx();
  await readTool.call({ file_path: name }, session);
  const result = await notebookEditTool.call(
    { notebook_path: name, cell_id: 'cell-0', new_source: 'y', cell_type: 'markdown', edit_mode: 'insert' },
    session,
  );
  assert.equal(result.content, 'Inserted cell cell-1 with y');
  assert.equal(load(name).cells[1]!.id, undefined);
  assert.equal(
    readFileSync(path.join(dir, name), 'utf8').endsWith('\n'),
    false,
    'no newline added where there was none',
  );
});

test('refusals: not read, changed since read, not a notebook, bad JSON, bad shape, unknown cell, missing cell_id or cell_type', async () => {
  const name = fresh('refuse.ipynb');
  const session = ctx();
  const unread = await notebookEditTool.call({ notebook_path: name, cell_id: 'load', new_source: 'x' }, session);
  assert.equal(
    unread.content,
    '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>',
  );
  await readTool.call({ file_path: name }, session);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ cell_id: 'nope', new_source: 'x' }, 'Cell with ID "nope" not found in notebook.'],
    [{ cell_id: 'cell-9', new_source: 'x' }, 'Cell with index 9 does not exist in notebook.'],
    [{ new_source: 'x' }, 'Cell ID must be specified when not inserting a new cell.'],
    [{ new_source: 'x', edit_mode: 'insert' }, 'Cell type is required when using edit_mode=insert.'],
    [{ cell_id: 'load', new_source: 'x', edit_mode: 'append' }, 'Edit mode must be replace, insert, or delete.'],
  ];
  for (const [input, message] of cases) {
    const result = await notebookEditTool.call({ notebook_path: name, ...input }, session);
    assert.equal(result.content, `<tool_use_error>${message}</tool_use_error>`, JSON.stringify(input));
  }
  assert.equal(readFileSync(path.join(dir, name), 'utf8'), notebookText, 'nothing was written');
  const future = Date.now() / 1000 + 10;
  writeFileSync(path.join(dir, name), notebookText);
  const { utimesSync } = await import('node:fs');
  utimesSync(path.join(dir, name), future, future);
  const changed = await notebookEditTool.call({ notebook_path: name, cell_id: 'load', new_source: 'x' }, session);
  assert.match(String(changed.content), /File has been modified since read/);
  const text = fresh('plain.txt', 'hi');
  const notNotebook = await notebookEditTool.call({ notebook_path: text, cell_id: 'a', new_source: 'x' }, session);
  assert.match(String(notNotebook.content), /File must be a Jupyter notebook \(\.ipynb file\)/);
  const missing = await notebookEditTool.call(
    { notebook_path: 'missing.ipynb', cell_id: 'a', new_source: 'x' },
    session,
  );
  assert.match(String(missing.content), /Notebook file does not exist/);
  for (const [file, body, message] of [
    ['broken.ipynb', '{"cells": [', 'Notebook is not valid JSON.'],
    ['shape.ipynb', '{"cells": {}}', 'Notebook file is not a valid Jupyter notebook'],
    ['cell.ipynb', '{"cells": [{"cell_type": "code", "source": 3}]}', 'Cell 0 needs a "cell_type" and a "source"'],
    ['array.ipynb', '[]', 'Notebook file is not a valid Jupyter notebook'],
  ] as const) {
    fresh(file, body);
    // Read refuses a broken notebook (and so records no read): mark it read to reach NotebookEdit's own checks.
    await recordRead(session.state, path.join(dir, file));
    const result = await notebookEditTool.call({ notebook_path: file, cell_id: 'cell-0', new_source: 'x' }, session);
    assert.equal(result.isError, true, file);
    assert.ok(String(result.content).includes(message), `${file}: ${String(result.content)}`);
    assert.equal(readFileSync(path.join(dir, file), 'utf8'), body);
  }
});

test('end to end: Read then NotebookEdit in acceptEdits; tool_use_result is the NotebookEditOutput', async () => {
  const cwd = tempDir({ 'nb.ipynb': notebookText });
  const out = await runInProcess(
    [
      { tool_calls: [{ name: 'Read', id: 'toolu_r', input: { file_path: 'nb.ipynb' } }] },
      {
        tool_calls: [
          {
            name: 'NotebookEdit',
            id: 'toolu_n',
            input: { notebook_path: path.join(cwd, 'nb.ipynb'), cell_id: 'plot', new_source: 'df.describe()' },
          },
        ],
      },
      { text: 'done' },
    ],
    { cwd, permissionMode: 'acceptEdits', persistSession: false },
  );
  const result = toolResults(out).get('toolu_n')!;
  assert.notEqual(result.is_error, true);
  assert.equal(result.content, 'Updated cell plot with df.describe()');
  const data = result.line.tool_use_result as Record<string, unknown>;
  assert.deepEqual(Object.keys(data).sort(), [
    'cell_id',
    'cell_type',
    'edit_mode',
    'error',
    'language',
    'new_source',
    'notebook_path',
    'old_source',
    'original_file',
    'updated_file',
  ]);
  assert.equal(data.original_file, notebookText);
  assert.equal(data.updated_file, readFileSync(path.join(cwd, 'nb.ipynb'), 'utf8'));
  assert.ok(ofType(out, 'system', 'init')[0]!.tools.includes('NotebookEdit'));
});

test('the CLI: acceptEdits edits a notebook in the working folder but asks for one in a protected folder; the default mode asks', async () => {
  const cwd = tempDir({ 'nb.ipynb': notebookText });
  mkdirSync(path.join(cwd, '.git'));
  writeFileSync(path.join(cwd, '.git', 'nb.ipynb'), notebookText);
  const turns = (file: string) => [
    { tool_calls: [{ name: 'Read', id: 'toolu_r', input: { file_path: file } }] },
    {
      tool_calls: [
        { name: 'NotebookEdit', id: 'toolu_n', input: { notebook_path: file, cell_id: 'plot', new_source: 'x' } },
      ],
    },
    { text: 'done' },
  ];
  const denials = (lines: Array<Record<string, any>>) =>
    (lines.at(-1)!.permission_denials as Array<{ tool_name: string }>).map((d) => d.tool_name);
  const protectedRun = await runScripted(cwd, turns('.git/nb.ipynb'), ['--permission-mode', 'acceptEdits']);
  assert.deepEqual(denials(protectedRun.lines), ['NotebookEdit']);
  assert.equal(readFileSync(path.join(cwd, '.git', 'nb.ipynb'), 'utf8'), notebookText);
  const plain = await runScripted(cwd, turns('nb.ipynb'));
  assert.deepEqual(denials(plain.lines), ['NotebookEdit']);
  const accepted = await runScripted(cwd, turns('nb.ipynb'), ['--permission-mode', 'acceptEdits']);
  assert.deepEqual(denials(accepted.lines), []);
  assert.equal(toolResults(accepted.lines).get('toolu_n')!.line.tool_use_result.cell_id, 'plot');
  assert.equal((JSON.parse(readFileSync(path.join(cwd, 'nb.ipynb'), 'utf8')) as typeof NOTEBOOK).cells[2]!.source, 'x');
});
