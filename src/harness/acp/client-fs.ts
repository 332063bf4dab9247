/**
 * The client's `fs/read_text_file` and `fs/write_text_file`: served for the agent's current session
 * only, on absolute paths inside the working folder (symbolic links followed), with the Read and
 * Write deny rules, as the tools hold them. Both open the file through the folder the check judged
 * (file-write.ts): a folder swapped for a link after the check is refused.
 */
import { errorCode } from '../../process/errors.ts';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { readTextNoFollow, writeTextNoFollow } from '../../tools/file-write.ts';
import { makeJudgedFolder } from '../../tools/make-folders.ts';
import type { PermissionRule } from '../../tools/permission-rules.ts';
import { readDeniedFor } from '../../tools/permissions.ts';
import { protectedReason } from '../../tools/protected-paths.ts';
import { errorText } from './shared.ts';

/** What `fs/read_text_file` asks for. */
export interface ReadTextFile {
  sessionId: string;
  path: string;
  line?: number | null;
  limit?: number | null;
}

/** What `fs/write_text_file` asks for. */
export interface WriteTextFile {
  sessionId: string;
  path: string;
  content: string;
}

/** Files of the working folder, for the session `sessionId()` names. */
export class ClientFs {
  readonly #cwd: string;
  readonly #sessionId: () => string | undefined;
  readonly #denied: PermissionRule[];

  constructor(cwd: string, sessionId: () => string | undefined, denied: PermissionRule[]) {
    this.#cwd = cwd;
    this.#sessionId = sessionId;
    this.#denied = denied;
  }

  async readFile(params: ReadTextFile): Promise<{ content: string }> {
    const file = await this.#inside(params.sessionId, params.path);
    // Served outside the agent's sandbox: the Read deny rules hold here as they do for the Read tool.
    const denied = readDeniedFor('Read', this.#denied, this.#cwd)?.(file);
    if (denied) throw acp.RequestError.invalidParams({ path: params.path }, `not read: denied by ${denied}`);
    let text: string | null;
    try {
      // `file` is the real path just checked: read through the folder it was checked in, no link at its name (a
      // folder the agent swaps for a link to ~/.ssh after the check is refused, not followed outside its sandbox).
      text = await readTextNoFollow(file, 'read', file);
    } catch (error) {
      throw acp.RequestError.internalError(undefined, `cannot read ${params.path}: ${errorText(error)}`);
    }
    if (text === null) throw acp.RequestError.resourceNotFound(params.path);
    if (params.line == null && params.limit == null) return { content: text };
    const start = Math.max(0, (params.line ?? 1) - 1);
    const lines = text.split('\n');
    return { content: lines.slice(start, params.limit == null ? undefined : start + params.limit).join('\n') };
  }

  /**
   * The agent's own write, done by agentpipe outside the agent's sandbox: never into configuration that makes programs
   * run (`.git/hooks`, `.agentpipe/`, the folders the sandbox keeps read-only), and never through a link at the
   * file's name (one the agent swaps in after the check included).
   */
  async writeFile(params: WriteTextFile): Promise<Record<string, never>> {
    const file = await this.#inside(params.sessionId, params.path);
    const guarded = protectedReason(file) ?? readDeniedFor('Write', this.#denied, this.#cwd)?.(file);
    if (guarded) throw acp.RequestError.invalidParams({ path: params.path }, `not written: ${guarded}`);
    try {
      // Its missing folders only under the folder just checked (a link swapped in meanwhile is refused).
      await makeJudgedFolder(path.dirname(file), 'write');
      // `file` is the real path just checked: the folder it is written in must still be that one.
      await writeTextNoFollow(file, params.content, 'write', { judged: file });
    } catch (error) {
      throw acp.RequestError.internalError(undefined, `cannot write ${params.path}: ${errorText(error)}`);
    }
    return {};
  }

  /** The real path of `file`, which must be absolute and inside the cwd (symbolic links followed). */
  async #inside(sessionId: string, file: string): Promise<string> {
    if (sessionId !== this.#sessionId()) throw acp.RequestError.sessionNotFound(sessionId);
    if (typeof file !== 'string' || !path.isAbsolute(file))
      throw acp.RequestError.invalidParams({ path: file }, 'the path must be absolute');
    const root = await realpath(this.#cwd);
    const real = await realpathOfPrefix(path.resolve(file));
    if (real !== root && !real.startsWith(root + path.sep)) {
      throw acp.RequestError.invalidParams({ path: file }, `the path is outside the working folder ${this.#cwd}`);
    }
    return real;
  }
}

/** The real path of `file`: of its longest existing prefix when it does not exist (yet). */
async function realpathOfPrefix(file: string): Promise<string> {
  try {
    return await realpath(file);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
    const parent = path.dirname(file);
    if (parent === file) return file;
    return path.join(await realpathOfPrefix(parent), path.basename(file));
  }
}
