/**
 * Where Write, Edit and NotebookEdit may write when the check is bypassed on purpose
 * (`bypassPermissions`) and the OS sandbox confines commands: where a sandboxed command could, no
 * more. The file tools run inside agentpipe, not in a sandbox; without this, a model could write
 * with them what its Bash calls cannot (a file outside the working folders, `.git/hooks/pre-commit`,
 * `.claude/settings.json`, `~/.ssh/authorized_keys`), and the sandbox's promise would not hold.
 */
import path from 'node:path';
import type { SandboxConfig } from '../sandbox/config.ts';
import { expandPath, realPath } from './paths.ts';
import { isInside } from '../process/paths.ts';
import { targetPath } from './permissions.ts';

/** The denial of a file tool's call that the sandbox refuses (bypassPermissions), or undefined. */
export async function sandboxWriteDenial(
  config: SandboxConfig,
  toolName: string,
  input: Record<string, unknown>,
): Promise<string | undefined> {
  const target = targetPath(input, toolName);
  const refused = target === undefined ? undefined : await sandboxWriteRefusal(config, target);
  if (refused === undefined) return undefined;
  return (
    `${toolName} was not run: ${refused}. bypassPermissions does not lift the OS sandbox: the file tools write ` +
    `only where sandboxed commands may (the working folders, --add-dir, sandbox.filesystem.allowWrite); ` +
    `--sandbox off turns it off`
  );
}

/** Why the sandbox refuses a file tool's write to `target`; undefined when a sandboxed command could write it. */
export async function sandboxWriteRefusal(config: SandboxConfig, target: string): Promise<string | undefined> {
  const [{ sandboxWritable }, { protectedIn }] = await Promise.all([
    import('../sandbox/sandbox.ts'),
    import('../sandbox/protected-paths.ts'),
  ]);
  const writable = await sandboxWritable(config);
  if (!writable) return undefined;
  const lexical = expandPath(config.cwd, target);
  const file = realPath(lexical);
  const shown = file === lexical ? file : `${file} (${lexical} leads there)`;
  const under = (paths: string[]) => paths.find((p) => isInside(file, realPath(p)));
  const hidden = under(writable.hidden);
  if (hidden) return `${shown} is in ${hidden}, which the sandbox hides from commands`;
  const roots = writable.roots.filter((root) => isInside(file, realPath(root)));
  if (!roots.length)
    return `${shown} is outside the folders sandboxed commands may write (${writable.roots.join(', ')})`;
  const denied = under(writable.denyWrite);
  if (denied) return `${shown} is in ${denied}, which sandbox.filesystem.denyWrite keeps read-only`;
  const rootPaths = writable.roots.map(realPath);
  const kept = under(roots.flatMap((root) => protectedIn(root, rootPaths.includes(realPath(path.join(root, '.git'))))));
  if (kept) return `${shown} is in ${kept}, which the sandbox keeps read-only (it can make programs run outside it)`;
  return undefined;
}
