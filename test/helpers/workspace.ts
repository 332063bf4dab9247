/** Temporary folders and script files for tests. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';

/** A fresh folder removed after the test file; `files` are written into it. */
export function tempDir(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agentpipe-test-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Writes a scripted-model script into `dir` and returns its path; `order: 'history'` answers by the history's answers
 * (any process resuming the session answers alike).
 */
export function writeScript(
  dir: string,
  turns: unknown[],
  name = 'script.json',
  order?: 'sequence' | 'history',
): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify({ turns, ...(order ? { order } : {}) }));
  return file;
}

/** A one-cell Jupyter notebook (cell `c1`, `print(1)`), as text: what the NotebookEdit rows edit. */
export const ONE_CELL_NOTEBOOK = JSON.stringify({
  cells: [{ cell_type: 'code', id: 'c1', metadata: {}, source: ['print(1)'], outputs: [], execution_count: null }],
  metadata: {},
  nbformat: 4,
  nbformat_minor: 5,
});
