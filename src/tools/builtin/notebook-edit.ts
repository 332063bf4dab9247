/**
 * NotebookEdit, as in Claude Code: replaces, inserts or deletes one cell of a Jupyter notebook
 * (.ipynb), found by its `id` (or `cell-N`, its index). The notebook must have been Read in this
 * session and not changed since, like Edit; its JSON is checked before anything is changed, and
 * outputs, metadata and the other cells are kept. `tool_use_result` is the SDK's
 * `NotebookEditOutput`.
 */
import { errorMessage } from '../../process/errors.ts';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { objectSchema, optionalString, requireString, requireText, resolvePath } from '../input.ts';
import { recordCheckpoint } from '../checkpoints.ts';
import { recordRead, writeRefusal } from '../read-state.ts';
import { readTextNoFollow, writeTextNoFollow } from '../file-write.ts';
import { ToolInputError, toolUseError, type Tool, type ToolResult } from '../types.ts';

/** One cell as nbformat 4 writes it (other fields are kept as they are). */
interface Cell {
  cell_type: string;
  source: string | string[];
  id?: string;
  metadata?: Record<string, unknown>;
  outputs?: unknown[];
  execution_count?: number | null;
  [key: string]: unknown;
}
/** A notebook: its cells, and everything else kept as it is. */
interface Notebook {
  cells: Cell[];
  nbformat?: number;
  nbformat_minor?: number;
  metadata?: { language_info?: { name?: unknown } } & Record<string, unknown>;
  [key: string]: unknown;
}

/** The SDK's `NotebookEditOutput`. */
export interface NotebookEditOutput {
  new_source: string;
  old_source?: string;
  cell_id?: string;
  cell_type: 'code' | 'markdown';
  language: string;
  edit_mode: string;
  error?: string;
  notebook_path: string;
  original_file: string;
  updated_file: string;
}

const MODES = ['replace', 'insert', 'delete'] as const;
type Mode = (typeof MODES)[number];
const NOT_A_NOTEBOOK =
  'Notebook file is not a valid Jupyter notebook (top-level "cells" must be an array of cell objects).';

export const notebookEditTool: Tool = {
  name: 'NotebookEdit',
  description: [
    'Replaces, inserts, or deletes a single cell in a Jupyter notebook (.ipynb file).',
    '',
    'Usage:',
    '- Read the notebook in this conversation before editing it; this tool fails otherwise.',
    '- cell_id is the cell\'s "id" in the notebook (or cell-N for the cell at index N). ' +
      'It is required for replace and delete.',
    '- edit_mode defaults to replace. insert adds a new cell after the cell with cell_id (at the beginning when ' +
      'cell_id is omitted);',
    '  cell_type is required when inserting. delete removes the cell.',
  ].join('\n'),
  inputSchema: objectSchema(
    {
      notebook_path: {
        type: 'string',
        description: 'The absolute path to the Jupyter notebook file to edit (must be absolute, not relative)',
      },
      cell_id: {
        type: 'string',
        description:
          'The ID of the cell to edit. When inserting a new cell, the new cell will be inserted after the cell ' +
          'with this ID, ' +
          'or at the beginning if not specified.',
      },
      new_source: { type: 'string', description: 'The new source for the cell' },
      cell_type: {
        type: 'string',
        enum: ['code', 'markdown'],
        description:
          'The type of the cell (code or markdown). If not specified, it defaults to the current cell type. ' +
          'If using edit_mode=insert, this is required.',
      },
      edit_mode: {
        type: 'string',
        enum: ['replace', 'insert', 'delete'],
        description: 'The type of edit to make (replace, insert, delete). Defaults to replace.',
      },
    },
    ['notebook_path', 'new_source'],
  ),
  editsFiles: true,
  isReadOnly: () => false,
  async call(input, context): Promise<ToolResult> {
    const file = resolvePath(context.cwd, requireString(input, 'notebook_path'));
    const newSource = requireText(input, 'new_source');
    const cellId = optionalString(input, 'cell_id') || undefined;
    const cellType = optionalString(input, 'cell_type');
    if (cellType !== undefined && cellType !== 'code' && cellType !== 'markdown') {
      throw new ToolInputError('The parameter `cell_type` must be "code" or "markdown"');
    }
    const mode = (optionalString(input, 'edit_mode') ?? 'replace') as Mode;
    if (path.extname(file).toLowerCase() !== '.ipynb') {
      return toolUseError(
        'File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool.',
      );
    }
    if (!MODES.includes(mode)) return toolUseError('Edit mode must be replace, insert, or delete.');
    if (mode === 'insert' && !cellType) return toolUseError('Cell type is required when using edit_mode=insert.');
    // Not through a link at the notebook's name, nor a hard link (a LinkedFileError says so).
    const before = await readTextNoFollow(file, 'NotebookEdit', context.judgedPath);
    if (before === null) return toolUseError(`Notebook file does not exist: ${file}`);
    const refusal = await writeRefusal(context.state, file);
    if (refusal) return toolUseError(refusal);
    let notebook: Notebook;
    try {
      notebook = parseNotebook(before);
    } catch (error) {
      return toolUseError(errorMessage(error));
    }
    if (cellId === undefined && mode !== 'insert')
      return toolUseError('Cell ID must be specified when not inserting a new cell.');
    let index = 0;
    if (cellId !== undefined) {
      const found = findCell(notebook.cells, cellId);
      if (typeof found === 'string') return toolUseError(found);
      index = found;
    }
    const edit = applyEdit(notebook, mode, index, cellId, newSource, cellType);
    const after = `${JSON.stringify(notebook, null, 1)}${before.endsWith('\n') ? '\n' : ''}`;
    recordCheckpoint(context.state, file, before);
    await writeTextNoFollow(file, after, 'NotebookEdit', { signal: context.signal, judged: context.judgedPath });
    await recordRead(context.state, file);
    const language =
      typeof notebook.metadata?.language_info?.name === 'string' ? notebook.metadata.language_info.name : 'python';
    const data: NotebookEditOutput = {
      new_source: newSource,
      ...(edit.oldSource !== undefined ? { old_source: edit.oldSource } : {}),
      ...(edit.id !== undefined ? { cell_id: edit.id } : {}),
      cell_type: edit.type,
      language,
      edit_mode: edit.mode,
      // Claude Code 2.1.332 sends an empty `error` on a successful edit (tools/notebook-edit).
      error: '',
      notebook_path: file,
      original_file: before,
      updated_file: after,
    };
    const label = edit.id ?? `cell-${edit.index}`;
    const content =
      edit.mode === 'delete'
        ? `Deleted cell ${label}`
        : `${edit.mode === 'insert' ? 'Inserted' : 'Updated'} cell ${label} with ${newSource}`;
    return { content, data };
  },
};

/** The notebook's JSON, checked: an object whose `cells` are cell objects with a type and a source. */
function parseNotebook(text: string): Notebook {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('Notebook is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(NOT_A_NOTEBOOK);
  const { cells, metadata } = value as { cells?: unknown; metadata?: unknown };
  if (!Array.isArray(cells)) throw new Error(NOT_A_NOTEBOOK);
  cells.forEach((cell: unknown, i) => {
    if (typeof cell !== 'object' || cell === null || Array.isArray(cell)) throw new Error(NOT_A_NOTEBOOK);
    const { cell_type: type, source, id } = cell as Record<string, unknown>;
    const sourceOk =
      typeof source === 'string' || (Array.isArray(source) && source.every((line) => typeof line === 'string'));
    if (typeof type !== 'string' || !sourceOk) {
      throw new Error(
        `${NOT_A_NOTEBOOK} Cell ${i} needs a "cell_type" and a "source" (a string or a list of strings).`,
      );
    }
    if (id !== undefined && typeof id !== 'string')
      throw new Error(`${NOT_A_NOTEBOOK} Cell ${i} has an "id" that is not a string.`);
  });
  if (metadata !== undefined && (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))) {
    throw new Error(`${NOT_A_NOTEBOOK} "metadata" must be an object.`);
  }
  return value as Notebook;
}

/** The index of the cell with this id, or of `cell-N`; a message for the model when there is none. */
function findCell(cells: Cell[], cellId: string): number | string {
  const byId = cells.findIndex((cell) => cell.id === cellId);
  if (byId !== -1) return byId;
  const numbered = /^cell-(\d+)$/.exec(cellId);
  if (!numbered) return `Cell with ID "${cellId}" not found in notebook.`;
  const index = Number(numbered[1]);
  return index < cells.length ? index : `Cell with index ${index} does not exist in notebook.`;
}

/** Changes the notebook in place; returns what the result reports. */
function applyEdit(
  notebook: Notebook,
  mode: Mode,
  index: number,
  cellId: string | undefined,
  source: string,
  cellType: 'code' | 'markdown' | undefined,
) {
  const { cells } = notebook;
  const sourceOf = (cell: Cell) => (Array.isArray(cell.source) ? cell.source.join('') : cell.source);
  const typeOf = (cell: Cell): 'code' | 'markdown' => (cell.cell_type === 'code' ? 'code' : 'markdown');
  if (mode === 'delete') {
    const [cell] = cells.splice(index, 1) as [Cell];
    return { mode, index, id: cell.id ?? cellId, type: typeOf(cell), oldSource: sourceOf(cell) };
  }
  if (mode === 'insert') {
    const at = cellId === undefined ? 0 : index + 1;
    const type = cellType ?? 'code';
    // Cell ids exist from nbformat 4.5 on.
    const wantsId =
      (notebook.nbformat ?? 4) > 4 || ((notebook.nbformat ?? 4) === 4 && (notebook.nbformat_minor ?? 0) >= 5);
    const id = wantsId ? newCellId(cells) : undefined;
    const cell: Cell =
      type === 'code'
        ? { cell_type: 'code', ...(id ? { id } : {}), metadata: {}, source, execution_count: null, outputs: [] }
        : { cell_type: 'markdown', ...(id ? { id } : {}), metadata: {}, source };
    cells.splice(at, 0, cell);
    return { mode, index: at, id, type, oldSource: undefined };
  }
  const cell = cells[index]!;
  const oldSource = sourceOf(cell);
  cell.source = source;
  const type = cellType ?? typeOf(cell);
  if (cellType && cell.cell_type !== cellType) cell.cell_type = cellType;
  if (cell.cell_type === 'code') {
    // The outputs were of the old source.
    cell.execution_count = null;
    cell.outputs = [];
  } else {
    delete cell.outputs;
    delete cell.execution_count;
  }
  return { mode, index, id: cell.id ?? cellId, type, oldSource };
}

/** A cell id not used in the notebook (nbformat: 1-64 letters, digits, - and _). */
function newCellId(cells: Cell[]): string {
  for (;;) {
    const id = randomBytes(6).toString('hex');
    if (!cells.some((cell) => cell.id === id)) return id;
  }
}
