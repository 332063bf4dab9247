/**
 * Live sessions in the viewer (`agentpipe view --live`, `agentpipe serve --ui`): the WebSocket
 * server of `serve` also answers plain HTTP with the page, which opens a connection (one session)
 * when a prompt is sent. Only pages of this server may connect (Host, Origin and token checks in
 * transport/access.ts), so another web site open in the same browser cannot start sessions here.
 */
import { errorMessage } from '../process/errors.ts';
import type http from 'node:http';
import { UsageError } from './options.ts';
import { openBrowser } from '../view/open-browser.ts';
import { pageHandler } from '../view/page-server.ts';

export async function uiServerOptions(): Promise<{ httpHandler: http.RequestListener }> {
  try {
    return { httpHandler: await pageHandler({ mode: 'live', title: 'live' }) };
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}

/** Prints the page's URL on stdout (with the token when one is needed) and opens it on `--open`. */
export function announcePage(
  server: { url: string },
  token: string | undefined,
  open: boolean,
  log: (line: string) => void,
): string {
  const url = new URL(server.url.replace(/^ws:/, 'http:'));
  if (token) url.searchParams.set('token', token);
  const href = url.toString();
  log(`agentpipe view: live sessions on ${href} (Ctrl+C to stop)`);
  process.stdout.write(`${href}\n`);
  if (open) openBrowser(href);
  return href;
}
