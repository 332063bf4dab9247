/**
 * HTTP side of the viewer: the page (with its data) at `/`, the built assets under `/assets/`,
 * nothing else. Used alone for saved streams and as the HTTP handler of the WebSocket server
 * for live sessions (`view --live`, `serve --ui`).
 */
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { checkAccess, type AccessPolicy } from '../transport/access.ts';
import { listen } from '../transport/listen.ts';
import { assetNames, pageHtml, webDir, type PageData } from './page.ts';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};
const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; " +
  "base-uri 'none'; frame-ancestors 'none'";

export async function pageHandler(data: PageData): Promise<http.RequestListener> {
  const html = await pageHtml(data);
  const assets = await assetNames();
  const dir = path.join(webDir(), 'assets');
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (url.pathname === '/' || url.pathname === '/index.html') {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'content-security-policy': CSP,
        'x-content-type-options': 'nosniff',
      });
      res.end(req.method === 'HEAD' ? undefined : html);
      return;
    }
    const name = url.pathname.startsWith('/assets/') ? url.pathname.slice('/assets/'.length) : '';
    if (!assets.has(name)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    readFile(path.join(dir, name)).then(
      (body) => {
        res.writeHead(200, {
          'content-type': TYPES[path.extname(name)] ?? 'application/octet-stream',
          'cache-control': 'max-age=31536000, immutable',
          'x-content-type-options': 'nosniff',
        });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => res.writeHead(500).end(),
    );
  };
}

/**
 * Serves a saved stream's page; resolves with the URL once listening. With a `token`, the page (not its assets) needs
 * it, as `serve`'s pages do.
 */
export async function servePage(
  data: PageData,
  port: number,
  host: string,
  token?: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const handler = await pageHandler(data);
  const policy: AccessPolicy = { host, port, token };
  // The page carries the session's data: a page on a rebinding host name must not read it.
  const server = http.createServer((req, res) => {
    const page = new URL(req.url ?? '/', 'http://localhost').pathname;
    const refusal = checkAccess(req, policy, page === '/' || page === '/index.html');
    if (refusal) res.writeHead(refusal.status, { 'content-type': 'text/plain' }).end(`${refusal.reason}\n`);
    else handler(req, res);
  });
  policy.port = await listen(server, port, host);
  const actual = policy.port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${actual}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
