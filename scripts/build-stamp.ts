/**
 * The build's stamp: one hash of everything `npm run build` reads (src/ and web/, the bundler script, the TypeScript
 * and package configs, the lock file, the Node version), written to dist/.build-stamp when a build has ended well and
 * removed when one starts. `npm test`'s pretest builds only when the stamp is missing or names other sources: in a
 * clean clone `npm ci` has just built them (`prepare`), and building them again (~25 s of CPU) changed nothing. The
 * type-checks and the lint still run in every `npm test`; the build's own check of src/ is tsconfig.check.json's too.
 *
 * `node scripts/build-stamp.ts clear` (start of the build), `... write` (its end); pretest asks `buildIsCurrent`.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const STAMP = 'dist/.build-stamp';
/** What the build reads: folders walked whole, and single files. */
const INPUTS = [
  'src',
  'web',
  'scripts/bundle.ts',
  'scripts/build-stamp.ts',
  'tsconfig.json',
  'package.json',
  'package-lock.json',
];
/** What the build writes: a stamp whose outputs were removed since is not current. */
const OUTPUTS = ['dist/index.js', 'dist/bin/entry.cjs', 'dist/web/index.html'];

/** Every file at or under `entry` (relative to `root`), in a stable order. */
function files(root: string, entry: string): string[] {
  const stat = statSync(path.join(root, entry), { throwIfNoEntry: false });
  if (!stat?.isDirectory()) return stat ? [entry] : [];
  return readdirSync(path.join(root, entry))
    .sort()
    .flatMap((name) => files(root, path.join(entry, name)));
}

/** The hash of the build's inputs under `root`: each file's path and content, and the Node version that builds. */
export function inputsHash(root = ROOT): string {
  const hash = createHash('sha256').update(`${process.version}\n`);
  for (const file of INPUTS.flatMap((entry) => files(root, entry)))
    hash.update(`${file}\n${statSync(path.join(root, file)).size}\n`).update(readFileSync(path.join(root, file)));
  return hash.digest('hex');
}

/** Whether `root`'s dist/ holds a finished build of the sources as they are now. */
export function buildIsCurrent(root = ROOT): boolean {
  const stamp = path.join(root, STAMP);
  if (!existsSync(stamp) || !OUTPUTS.every((file) => existsSync(path.join(root, file)))) return false;
  return readFileSync(stamp, 'utf8') === inputsHash(root);
}

/** Marks `root`'s dist/ as a finished build of the sources as they are (the build's last step). */
export function writeStamp(root = ROOT): void {
  writeFileSync(path.join(root, STAMP), inputsHash(root));
}

/** Removes the stamp (the build's first step: a build that stops half-way leaves none). */
export function clearStamp(root = ROOT): void {
  rmSync(path.join(root, STAMP), { force: true });
}

if (import.meta.main) {
  const command = process.argv[2];
  if (command === 'clear') clearStamp();
  else if (command === 'write') writeStamp();
  else {
    process.stderr.write('usage: node scripts/build-stamp.ts clear|write\n');
    process.exitCode = 2;
  }
}
