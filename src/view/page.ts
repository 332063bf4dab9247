/**
 * The built viewer page (dist/web/, made by `vite build` at build time) with the data put into
 * it: served with its assets next to it, or exported as one self-contained HTML file (script,
 * styles and data inlined, a Content-Security-Policy that forbids every request).
 */
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type PageData =
  | { mode: 'file'; title: string; messages: unknown[]; skipped?: number }
  | { mode: 'live'; title?: string }
  /** A cluster's sessions (`view --redis`, `serve --redis --ui`); `canStart`: the page may start sessions too. */
  | { mode: 'cluster'; title?: string; canStart?: boolean };

/** dist/web of this package, found from this module (src/view/, dist/view/ or the bundle in dist/bin/). */
export function webDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = path.join(dir, 'dist', 'web');
    if (existsSync(path.join(candidate, 'index.html'))) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error('the viewer page is not built (dist/web/index.html is missing): run `npm run build`');
}

const DATA_TAG = /<script id="agentpipe-data" type="application\/json">[\s\S]*?<\/script>/;

/** JSON that cannot end the <script> element it sits in. */
function dataScript(data: PageData): string {
  const json = JSON.stringify(data)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return `<script id="agentpipe-data" type="application/json">${json}</script>`;
}

/** Script text that cannot close or comment out its inline <script> element. */
function inlineSafe(js: string): string {
  return js
    .replace(/<!--/g, '\\x3C!--')
    .replace(/<\/script/gi, '\\x3C/script')
    .replace(/<script/gi, '\\x3Cscript');
}

/** The page with `data`, its assets linked (served next to it). */
export async function pageHtml(data: PageData): Promise<string> {
  const html = await readFile(path.join(webDir(), 'index.html'), 'utf8');
  return html.replace(DATA_TAG, () => dataScript(data));
}

const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:";

/** One HTML file that needs nothing else: no network, no external assets. */
export async function exportHtml(data: PageData): Promise<string> {
  const dir = webDir();
  let html = await readFile(path.join(dir, 'index.html'), 'utf8');
  const assets = async (file: string) => readFile(path.join(dir, file.replace(/^\.?\//, '')), 'utf8');
  const scripts = [...html.matchAll(/<script type="module"[^>]*\ssrc="([^"]+)"[^>]*><\/script>/g)];
  for (const [tag, src] of scripts) {
    const js = inlineSafe(await assets(src));
    html = html.replace(tag, () => `<script type="module">${js}</script>`);
  }
  const styles = [...html.matchAll(/<link rel="stylesheet"[^>]*\shref="([^"]+)"[^>]*>/g)];
  for (const [tag, href] of styles) {
    const css = (await assets(href)).replace(/<\/style/gi, '<\\/style');
    html = html.replace(tag, () => `<style>${css}</style>`);
  }
  html = html.replace(
    '<meta charset="utf-8" />',
    () => `<meta charset="utf-8" />\n    <meta http-equiv="Content-Security-Policy" content="${CSP}" />`,
  );
  return html.replace(DATA_TAG, () => dataScript(data));
}

/** Names of the built assets (the only files the server hands out besides the page). */
export async function assetNames(): Promise<Set<string>> {
  return new Set(await readdir(path.join(webDir(), 'assets')));
}
