#!/usr/bin/env node
// The agentpipe CLI: the bundled entry in dist/bin/ (built by `npm ci` or `npm run build`).
import module from 'node:module';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(`agentpipe: error: Node.js 22.18 or newer is needed (this is ${process.version}). Inside the project, \`npx agentpipe\` uses the pinned Node.\n`);
  process.exit(1);
}
// Reuse V8's compiled code across runs (startup matters for a CLI spawned per session).
module.enableCompileCache?.();
await import('../dist/bin/entry.js');
