/** The Agent's local "sandbox": a working folder, made on boot unless the user gave one. */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface Sandbox {
  /** Absolute path of the folder (also the sandbox id). */
  readonly path: string;
  /** True when agentpipe made the folder (and removes it on kill). */
  readonly owned: boolean;
}

/** Uses `cwd` (which must be a folder) or makes a fresh temporary folder. */
export async function openSandbox(cwd?: string): Promise<Sandbox> {
  if (cwd !== undefined) {
    const folder = path.resolve(cwd);
    // Missing: created below.
    const info = await stat(folder).catch(() => undefined);
    if (!info?.isDirectory()) throw new Error(`sandbox folder ${folder} does not exist or is not a folder`);
    return { path: folder, owned: false };
  }
  return { path: await mkdtemp(path.join(os.tmpdir(), 'agentpipe-sandbox-')), owned: true };
}

/** Removes the folder if agentpipe made it; a user's folder is never touched. */
export async function closeSandbox(sandbox: Sandbox): Promise<void> {
  if (sandbox.owned) await rm(sandbox.path, { recursive: true, force: true });
}
