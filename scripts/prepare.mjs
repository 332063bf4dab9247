/**
 * npm's `prepare`: builds dist/ in this checkout (`npm ci`, `npm install` here), but not when another project installs
 * this folder (`npm install /path/to/agentpipe`: npm runs the folder's `prepare` on every later install there, 13-25 s
 * each) and dist/ is already built. A packed tarball needs no build at all: `prepack` built dist/ into it, and npm runs
 * no `prepare` for a tarball. Plain JavaScript (shipped in the package): it must run on any Node npm runs it with.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const here = process.cwd();
const from = process.env.INIT_CWD ? path.resolve(process.env.INIT_CWD) : here;
const built = existsSync(path.join(here, 'dist/bin/entry.cjs'));
if (process.env.npm_command === 'pack' || process.env.npm_command === 'publish') {
  // `prepack` has just built dist/.
} else if (from !== here && built) {
  process.stderr.write(`agentpipe: dist/ is built; not rebuilding it for ${from} (run npm run build in ${here})\n`);
} else {
  execFileSync('npm', ['run', 'build'], { stdio: 'inherit' });
}
