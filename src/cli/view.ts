/** `agentpipe view`: a saved stream served as a page or exported as one HTML file, or live sessions. */
import { errorMessage } from '../process/errors.ts';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from './options.ts';
import type { ViewFlags } from './view-command.ts';
import { untilSignal } from './signals.ts';
import { serverToken } from './server-token.ts';
import { openBrowser } from '../view/open-browser.ts';
import { exportHtml, webDir } from '../view/page.ts';
import { servePage } from '../view/page-server.ts';
import { readStream } from '../view/read-stream.ts';
import { findSessionByPrefix, isSessionIdPrefix } from '../session/find-session.ts';

export async function runView(
  file: string | undefined,
  flags: ViewFlags,
  log: (line: string) => void,
): Promise<number> {
  try {
    webDir();
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  if (flags.redis !== undefined) {
    if (file || flags.live || flags.export)
      throw new UsageError('--redis shows the live cluster: no file, --live or --export with it');
    const { runClusterView } = await import('./view-cluster.ts');
    return runClusterView({ ...flags, redis: flags.redis }, log);
  }
  if (flags.live) {
    if (file) throw new UsageError('give either a file or --live, not both');
    if (flags.export) throw new UsageError('--export needs a file, not --live');
    const { serve } = await import('./serve.ts');
    return serve({ ...flags, includePartialMessages: true, ui: true }, log);
  }
  if (!file) throw new UsageError('give a saved stream (a .jsonl transcript or stream-json output), or --live');
  const source = await savedStream(file, flags.cwd);
  let stream;
  try {
    stream = await readStream(source);
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  if (stream.skipped)
    log(
      `agentpipe view: ${stream.skipped} line${stream.skipped === 1 ? '' : 's'} of ${file} skipped (not JSON messages)`,
    );
  const data = {
    mode: 'file' as const,
    title: path.basename(source),
    messages: stream.messages,
    skipped: stream.skipped,
  };
  if (flags.export) {
    const out = path.resolve(flags.export);
    await writeFile(out, await exportHtml(data));
    log(`agentpipe view: wrote ${out} (${stream.messages.length} messages)`);
    return 0;
  }
  // The page holds the whole session: past this machine (a --host that is not loopback) it needs a token, as serve.
  const { token, generated } = serverToken(flags, log, true);
  const server = await servePage(data, flags.port, flags.host, token);
  const url = generated && token ? `${server.url}?token=${token}` : server.url;
  log(`agentpipe view: ${stream.messages.length} messages of ${file} on ${url} (Ctrl+C to stop)`);
  process.stdout.write(`${url}\n`);
  if (flags.open) openBrowser(url);
  await untilSignal();
  await server.close();
  return 0;
}

/**
 * The file to show: `file` as a path, else the transcript of the saved session it names by its id or a unique start
 * of it (`agentpipe view 3f2a`: any folder's, this one's first).
 */
async function savedStream(file: string, cwd: string | undefined): Promise<string> {
  const resolved = path.resolve(file);
  if (existsSync(resolved) || !isSessionIdPrefix(file)) return resolved;
  const found = await findSessionByPrefix(file, path.resolve(cwd ?? process.cwd()));
  if (found instanceof Error) throw new UsageError(found.message);
  return found.file;
}
