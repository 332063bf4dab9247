/**
 * `--debug [filter]` / `--debug-file <file>`: one line per model request (model, message count,
 * tools), retry, fallback, tool call and control request, to the session's log (the CLI's stderr,
 * the library's `stderr` option) or appended to the file.
 * Lines never carry keys, headers or tool inputs. The filter names categories to keep
 * (`api,tools`) or to drop (`!control`); the categories are api, tools, control.
 */
import { errorMessage } from '../process/errors.ts';
import { appendFileSync, closeSync, openSync } from 'node:fs';
import path from 'node:path';
import { makePrivateFolderSync, PRIVATE_FILE, tightenFileSync } from '../process/private-files.ts';

export type DebugLog = (category: string, line: string) => void;

/**
 * The logger the options ask for, or undefined when debugging is off. Without a file, lines go to
 * `log`, the session's diagnostics. Throws when the file cannot be opened.
 */
export function debugLogger(
  options: { debug?: boolean | string; debugFile?: string },
  cwd: string,
  log: (line: string) => void,
): DebugLog | undefined {
  if (!options.debug && !options.debugFile) return undefined;
  const filter =
    typeof options.debug === 'string'
      ? options.debug
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [];
  const include = filter.filter((f) => !f.startsWith('!'));
  const exclude = filter.filter((f) => f.startsWith('!')).map((f) => f.slice(1));
  let write: (text: string) => void = log;
  if (options.debugFile) {
    const file = path.resolve(cwd, options.debugFile);
    try {
      // The owner's only: created 0600 (in 0700 folders it creates), an existing file tightened.
      makePrivateFolderSync(path.dirname(file));
      const fd = openSync(file, 'a', PRIVATE_FILE); // fails now, with a clear error, if it cannot be written
      try {
        tightenFileSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      throw new Error(`--debug-file ${options.debugFile}: ${errorMessage(error)}`);
    }
    // Opened per line (the log is a few lines per turn): no descriptor outlives the session,
    // however many sessions a server runs.
    write = (text) => appendFileSync(file, text, { mode: PRIVATE_FILE });
  }
  return (category, line) => {
    if ((include.length && !include.includes(category)) || exclude.includes(category)) return;
    write(`${new Date().toISOString()} [DEBUG] [${category}] ${line}\n`);
  };
}
