/**
 * bin/agentpipe.js keeps a V8 code cache of the CLI's entry, written once a run has called the
 * functions later runs need (at exit, see there). A cache made under other V8 flags is rejected,
 * so whatever changes a flag mid-run saves it first, with this.
 */
export function saveCodeCache(): void {
  const save: unknown = Reflect.get(globalThis, Symbol.for('agentpipe.saveCodeCache'));
  if (typeof save === 'function') Reflect.apply(save, undefined, []);
}
