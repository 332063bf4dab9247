/**
 * Writing a settings file agentpipe keeps for the user (`update_settings`, `agentpipe trust`): the
 * file's JSON object is read, changed and written whole to a private temporary file that is then
 * renamed into place, so a reader never sees half a file and other keys stay as they were. A file
 * that is not a JSON object is left alone with an error naming it.
 */
import { errorCode } from '../process/errors.ts';
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makePrivateFolder, PRIVATE_FILE } from '../process/private-files.ts';
import { isRecord } from '../process/guards.ts';

/** Reads `file`'s object (`{}` when there is no file); throws a clear error, naming `label`, when it is not one. */
export async function readSettingsObject(file: string, label: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return {};
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${label}: ${file} is not valid JSON; not changed`);
  }
  if (!isRecord(parsed)) throw new Error(`${label}: ${file} does not hold a JSON object; not changed`);
  return parsed;
}

/** Applies `change` to `file`'s object and writes the result (0600, in a 0700 folder when one is made). */
export async function changeSettingsFile(
  file: string,
  label: string,
  change: (current: Record<string, unknown>) => Record<string, unknown>,
): Promise<void> {
  const next = change(await readSettingsObject(file, label));
  await makePrivateFolder(path.dirname(file));
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(next, null, 2)}\n`, { mode: PRIVATE_FILE });
  await rename(temp, file);
}
