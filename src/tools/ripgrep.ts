/**
 * The ripgrep that Grep runs: the binary `@vscode/ripgrep` carries for this platform (a
 * per-platform optional package of the registry, nothing downloaded at install time), or `rg` on
 * PATH where that package has no binary for the platform or was left out (`--omit=optional`).
 */
let found: Promise<string> | undefined;

/** The ripgrep executable: the packaged binary's path, or `rg` (looked up on PATH). */
export function ripgrepCommand(): Promise<string> {
  // @vscode/ripgrep throws on import when its platform package is missing.
  found ??= import('@vscode/ripgrep').then(
    (ripgrep) => ripgrep.rgPath,
    () => 'rg',
  );
  return found;
}
