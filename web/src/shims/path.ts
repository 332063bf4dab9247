/** The part of `node:path` the projections use (POSIX `resolve`), for the browser bundle. */
function normalize(parts: string[]): string {
  const out: string[] = [];
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}`;
}

export function resolve(...paths: string[]): string {
  let joined = '';
  for (let i = paths.length - 1; i >= 0; i--) {
    joined = joined ? `${paths[i]}/${joined}` : paths[i];
    if (paths[i].startsWith('/')) break;
  }
  return normalize(joined.split('/'));
}

export default { resolve };
