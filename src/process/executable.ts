/** Finding a program the way a shell does: a path as given, a bare name on PATH. */
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/**
 * `file` as an executable path: as given when it has a slash, else the first match on PATH's absolute entries. An
 * empty entry (`:/usr/bin`), `.` or a relative one names whatever folder the search runs in, a folder the model can
 * write (the working folder, a repository git runs in): its programs are not found (as Go's exec.LookPath refuses
 * them).
 */
export function findExecutable(
  file: string,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  const candidates = file.includes('/')
    ? [path.resolve(file)]
    : (env.PATH ?? '')
        .split(path.delimiter)
        .filter((dir) => path.isAbsolute(dir))
        .map((dir) => path.join(dir, file));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
