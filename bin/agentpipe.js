#!/usr/bin/env node
// The agentpipe CLI. Runs the compiled code in dist/ (built by `npm ci` / `npm run build`).
import { main } from '../dist/cli/main.js';

main().then(
  () => process.exit(),
  (error) => {
    process.stderr.write(`agentpipe: internal error: ${error?.stack ?? error}\n`);
    process.exit(1);
  },
);
