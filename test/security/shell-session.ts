/**
 * The set-up the shell-cwd tests share: a temp root (real path) with a working folder and a folder outside it, and a
 * way to run the Bash tool there as a session would (a ToolState kept between calls, the folder the check judged).
 */
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bashTool } from '../../src/tools/builtin/bash.ts';
import type { ShellStart } from '../../src/tools/shell/shell-cwd.ts';
import type { ToolContext } from '../../src/tools/types.ts';
import type { ToolState } from '../../src/tools/state.ts';

/** A fresh temp root with `work` and `outside` made (remove `root` after). */
export function shellFolders(prefix: string): { root: string; work: string; outside: string } {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  const work = path.join(root, 'work');
  const outside = path.join(root, 'outside');
  for (const dir of [work, outside]) mkdirSync(dir, { recursive: true });
  return { root, work, outside };
}

/** One Bash call in `work`, the tool's text answer; `extra` (ToolContext's other members) as the runner sets them. */
export async function runBash(
  command: string,
  work: string,
  state: ToolState,
  shell?: ShellStart,
  extra: Partial<ToolContext> = {},
): Promise<string> {
  const context: ToolContext = {
    cwd: work,
    signal: new AbortController().signal,
    sessionId: 's',
    toolUseId: 't',
    state,
    ...(shell ? { shell } : {}),
    ...extra,
  };
  return String((await bashTool.call({ command }, context)).content);
}
