/**
 * Runs a Lua script of the log by its SHA-1 (EVALSHA), loading it with EVAL the first time a
 * server does not know it (a restarted Redis forgets its scripts). Keys and fixed arguments are
 * passed by name, in the order the script's contract gives.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A script and its contract: the names of its KEYS and of its fixed ARGV, in order. */
export interface LuaScript<K extends string, A extends string> {
  /** For messages. */
  name: string;
  keys: readonly K[];
  argv: readonly A[];
  lua: string;
}

const shas = new WeakMap<object, string>();

function shaOf(script: LuaScript<string, string>): string {
  let sha = shas.get(script);
  if (!sha) shas.set(script, (sha = createHash('sha1').update(script.lua).digest('hex')));
  return sha;
}

/** Runs `script` with its keys and arguments by name, then `rest` (a variadic tail); its raw answer. */
export async function callScript<K extends string, A extends string>(
  client: Redis,
  script: LuaScript<K, A>,
  keys: Record<K, string>,
  argv: Record<A, string | number>,
  rest: ReadonlyArray<string | number> = [],
): Promise<unknown> {
  const args: Array<string | number> = [
    ...script.keys.map((k) => keys[k]),
    ...script.argv.map((a) => argv[a]),
    ...rest,
  ];
  try {
    return await client.evalsha(shaOf(script), script.keys.length, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return client.eval(script.lua, script.keys.length, ...args);
  }
}
