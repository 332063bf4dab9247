/**
 * The one error base of agentpipe and the two readers of anything thrown. Every error class agentpipe defines derives
 * from `AgentpipeError`; each carries a `Symbol.for('agentpipe.error.<Name>')` marker for itself and every class it
 * derives from, so `UsageError.isInstance(error)` also recognises an error made by another copy of the module (the
 * library's dist/ beside the CLI's bundle, two installed versions), where `instanceof` would say no. `cause` is kept
 * (the standard `ErrorOptions`). This file imports nothing: the CLI's entry loads it.
 */

/** A class of AgentpipeError as `isInstance` sees it: what it builds and the name its marker is made of. */
interface ErrorClass<T> {
  readonly prototype: T;
  readonly errorName: string;
}

const markerOf = (name: string): symbol => Symbol.for(`agentpipe.error.${name}`);

/**
 * The base of every error agentpipe throws. A subclass names itself once, in `static errorName` (also its `name`),
 * and is recognised with `Subclass.isInstance(error)`.
 */
export class AgentpipeError extends Error {
  /** The class's name: its `name` and its marker (`agentpipe.error.<errorName>`). Every subclass sets its own. */
  static readonly errorName: string = 'AgentpipeError';

  constructor(message?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.errorName;
    // One marker per class of the chain that names itself, so an error is an instance of each class it derives from.
    for (let c: unknown = new.target; typeof c === 'function'; c = Object.getPrototypeOf(c)) {
      const name: unknown = Object.hasOwn(c, 'errorName') ? Reflect.get(c, 'errorName') : undefined;
      if (typeof name === 'string') Object.defineProperty(this, markerOf(name), { value: true });
      if (c === AgentpipeError) break;
    }
  }

  /** True when `error` was made by this class or one derived from it, by any copy of this module. */
  static isInstance<T>(this: ErrorClass<T>, error: unknown): error is T {
    return typeof error === 'object' && error !== null && Reflect.get(error, markerOf(this.errorName)) === true;
  }
}

/** The message of anything thrown: an Error's message, else the value as text (a non-Error has no `.message`). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The `code` of a Node.js system error (`ENOENT`, `EPIPE`, ...), or undefined for anything else thrown. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code: unknown = Reflect.get(error, 'code');
  return typeof code === 'string' ? code : undefined;
}
