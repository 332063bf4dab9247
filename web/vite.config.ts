/**
 * The viewer page (`agentpipe view`): one JS file and one CSS file in dist/web/, relative
 * paths, so the CLI can serve them as they are or inline them into one exported HTML file.
 * The library's projections (src/sdk/acp-updates.ts, session-events.ts) are bundled as they
 * are; the two Node modules they touch get small browser stand-ins.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: './',
  publicDir: false,
  logLevel: 'warn',
  resolve: {
    alias: {
      'node:path': here('src/shims/path.ts'),
      'node:fs': here('src/shims/fs.ts'),
    },
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: here('../dist/web'),
    emptyOutDir: true,
    cssCodeSplit: false,
    assetsInlineLimit: Number.MAX_SAFE_INTEGER,
    modulePreload: false,
    chunkSizeWarningLimit: 2000,
  },
});
