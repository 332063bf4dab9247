/**
 * Read of a Jupyter notebook as Claude Code 2.1 renders it (read from its binary): each cell as
 * `<cell id="…">…</cell id="…">` (with `<cell_type>` for non-code cells and `<language>` for
 * code that is not Python), each output as a text block after its cell, joined into one text
 * block with newlines where two texts meet; images stay image blocks. The `tool_use_result` is
 * the SDK's notebook shape: `{ type: 'notebook', file: { filePath, cells } }`.
 */
import { AgentpipeError, errorMessage } from '../../process/errors.ts';
import { z } from 'zod';
import type { ImageBlock, ImageMediaType, TextBlock } from '../../messages/types.ts';

/** Outputs longer than this (characters of text and image data together) are replaced by a note. */
const MAX_OUTPUTS = 10_000;
/** A single output text longer than this is cut (Claude Code's tool output cap). */
const MAX_OUTPUT_TEXT = 30_000;

const Text = z.union([z.string(), z.array(z.string())]).optional();
const Output = z
  .object({
    output_type: z.string(),
    text: Text,
    data: z.record(z.string(), z.unknown()).optional(),
    ename: z.string().optional(),
    evalue: z.string().optional(),
    traceback: z.array(z.string()).optional(),
  })
  .loose();
const Cell = z
  .object({
    cell_type: z.string(),
    id: z.string().optional(),
    source: Text,
    execution_count: z.number().nullable().optional(),
    outputs: z.array(Output).optional(),
  })
  .loose();
const Notebook = z
  .object({
    cells: z.array(Cell),
    metadata: z
      .object({ language_info: z.object({ name: z.string() }).loose().optional() })
      .loose()
      .optional(),
  })
  .loose();

/** One output as the SDK's NotebookCellSourceOutput. */
export interface NotebookOutput {
  output_type: string;
  text?: string;
  image?: { image_data: string; media_type: 'image/png' | 'image/jpeg' };
}

/** One cell as the SDK's NotebookCellSource. */
export interface NotebookCell {
  cellType: string;
  source: string;
  execution_count?: number;
  cell_id: string;
  language?: string;
  outputs?: NotebookOutput[];
}

/** The notebook file could not be read as a notebook (the model sees the message). */
export class NotebookReadError extends AgentpipeError {
  static override readonly errorName: string = 'NotebookReadError';
}

const joined = (text: string | string[] | undefined): string =>
  text === undefined ? '' : Array.isArray(text) ? text.join('') : text;

function truncated(text: string): string {
  if (text.length <= MAX_OUTPUT_TEXT) return text;
  const rest = text.slice(MAX_OUTPUT_TEXT).split('\n').length;
  return `${text.slice(0, MAX_OUTPUT_TEXT)}\n\n... [${rest} lines truncated] ...`;
}

function imageOf(data: Record<string, unknown>): NotebookOutput['image'] {
  for (const mediaType of ['image/png', 'image/jpeg'] as const) {
    const value = data[mediaType];
    if (typeof value === 'string') return { image_data: value.replace(/\s/g, ''), media_type: mediaType };
  }
  return undefined;
}

function outputOf(output: z.infer<typeof Output>): NotebookOutput | undefined {
  switch (output.output_type) {
    case 'stream':
      return { output_type: output.output_type, text: truncated(joined(output.text)) };
    case 'execute_result':
    case 'display_data': {
      const plain = output.data?.['text/plain'];
      const text = typeof plain === 'string' || Array.isArray(plain) ? joined(plain as string | string[]) : '';
      const image = output.data ? imageOf(output.data) : undefined;
      return { output_type: output.output_type, text: truncated(text), ...(image ? { image } : {}) };
    }
    case 'error':
      return {
        output_type: output.output_type,
        text: truncated(`${output.ename ?? ''}: ${output.evalue ?? ''}\n${(output.traceback ?? []).join('\n')}`),
      };
    default:
      return undefined;
  }
}

function cellOf(cell: z.infer<typeof Cell>, index: number, language: string): NotebookCell {
  const out: NotebookCell = {
    cellType: cell.cell_type,
    source: joined(cell.source),
    ...(cell.cell_type === 'code' && cell.execution_count ? { execution_count: cell.execution_count } : {}),
    cell_id: cell.id ?? `cell-${index}`,
  };
  if (cell.cell_type === 'code') out.language = language;
  if (cell.cell_type === 'code' && cell.outputs?.length) {
    const outputs = cell.outputs.map(outputOf).filter((o): o is NotebookOutput => o !== undefined);
    const size = outputs.reduce((n, o) => n + (o.text?.length ?? 0) + (o.image?.image_data.length ?? 0), 0);
    out.outputs =
      size > MAX_OUTPUTS
        ? [
            {
              output_type: 'stream',
              text:
                `Outputs are too large to include. Use Bash with: cat <notebook_path> | jq ` +
                `'.cells[${index}].outputs'`,
            },
          ]
        : outputs;
  }
  return out;
}

/** The cells of a notebook's text, or a NotebookReadError saying why it is not one. */
export function notebookCells(text: string): NotebookCell[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new NotebookReadError(
      `Notebook file is not valid JSON (it may be truncated, corrupted, or still being written): ` +
        `${errorMessage(error)}`,
    );
  }
  const parsed = Notebook.safeParse(raw);
  if (!parsed.success)
    throw new NotebookReadError(
      'Notebook file is not a valid Jupyter notebook (top-level "cells" must be an array of cell objects).',
    );
  const language = parsed.data.metadata?.language_info?.name ?? 'python';
  return parsed.data.cells.map((cell, i) => cellOf(cell, i, language));
}

/** What the model sees: one text block per run of texts, images between them. */
export function notebookContent(cells: NotebookCell[]): Array<TextBlock | ImageBlock> {
  const blocks: Array<TextBlock | ImageBlock> = cells.flatMap((cell) => {
    const tags = [
      ...(cell.cellType !== 'code' ? [`<cell_type>${cell.cellType}</cell_type>`] : []),
      ...(cell.cellType === 'code' && cell.language !== 'python' ? [`<language>${cell.language}</language>`] : []),
    ];
    const head: TextBlock = {
      type: 'text',
      text: `<cell id="${cell.cell_id}">${tags.join('')}${cell.source}</cell id="${cell.cell_id}">`,
    };
    const outputs = (cell.outputs ?? []).flatMap((o): Array<TextBlock | ImageBlock> => [
      ...(o.text ? [{ type: 'text' as const, text: `\n${o.text}` }] : []),
      ...(o.image
        ? [
            {
              type: 'image' as const,
              source: {
                type: 'base64' as const,
                data: o.image.image_data,
                media_type: o.image.media_type as ImageMediaType,
              },
            },
          ]
        : []),
    ]);
    return [head, ...outputs];
  });
  return blocks.reduce<Array<TextBlock | ImageBlock>>((all, block) => {
    const last = all.at(-1);
    if (last?.type === 'text' && block.type === 'text') last.text += `\n${block.text}`;
    else all.push(block.type === 'text' ? { ...block } : block);
    return all;
  }, []);
}
