/**
 * The argv that starts bubblewrap for a sandboxed command (sandbox.ts), and the files its spawner hands over.
 */
import { findExecutable } from '../process/executable.ts';

/**
 * How bubblewrap starts (after `nsenter` when the command joins a network namespace), with the seccomp filter on
 * descriptor 9 (bubblewrap reads it and closes it): directly, the spawner handing over the filter, when it can
 * (`files`) and agentpipe inherited no descriptor to close; otherwise under `sh -c` that closes the descriptors
 * agentpipe inherited without close-on-exec and opens the filter: one argv, so it fits every spawner (the MCP
 * SDK's stdio transport takes no extra descriptors).
 */
export function launcher(
  start: string[],
  args: string[],
  filter: string | undefined,
  inherited: number[],
  files: boolean,
): { argv: string[]; files?: Record<number, string> } {
  const argv = [...start, ...(filter ? ['--seccomp', '9'] : []), ...args];
  if (files && inherited.length === 0) return filter ? { argv, files: { 9: filter } } : { argv };
  const leaked = inherited.filter((fd) => fd !== 9);
  const closes = leaked.map((fd) => `${fd}>&-`).join(' ');
  const seccomp = filter ? ` 9<${shellQuote(filter)}` : '';
  // dash (sh) redirects only descriptors 0-9; bash is needed past them. It runs outside the sandbox: started by its
  // path, never looked up on the command's PATH, whose folders inside the working folders a command may write.
  const shell = leaked.some((fd) => fd > 9) ? (findExecutable('bash') ?? '/bin/bash') : '/bin/sh';
  return { argv: [shell, '-c', `exec ${closes} "$@"${seccomp}`.replace(/ {2,}/g, ' '), 'agentpipe-sandbox', ...argv] };
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
