/** The Lua scripts of the Redis session store (session-store.ts), with their KEYS/ARGV contracts. */
import type { LuaScript } from '../log/lua/call.ts';

/**
 * Appends a transcript's entries atomically. For the main transcript (`main` '1') the summary is replaced only if its
 * version is still `version` ('' for none), else the answer is -1 and nothing changed; for a subagent's, its subpath
 * joins the session's subkeys (in first-append order). The tail of ARGV is (uuid, json) pairs: with `dedupe` '1', an
 * entry whose uuid the key holds already is skipped. Answers the number of entries stored.
 */
export const STORE_APPEND: LuaScript<'list' | 'meta' | 'uuids' | 'subkeys', string> = {
  name: 'storeAppend',
  keys: ['list', 'meta', 'uuids', 'subkeys'],
  argv: ['main', 'version', 'mtime', 'summary', 'subpath', 'dedupe'],
  lua: `
if ARGV[1] == '1' then
  local ver = redis.call('HGET', KEYS[2], 'ver') or ''
  if ver ~= ARGV[2] then return -1 end
  redis.call('HSET', KEYS[2], 'ver', tostring((tonumber(ver) or 0) + 1), 'summary', ARGV[4])
else
  if redis.call('ZSCORE', KEYS[4], ARGV[5]) == false then
    local top = redis.call('ZRANGE', KEYS[4], -1, -1, 'WITHSCORES')
    redis.call('ZADD', KEYS[4], (tonumber(top[2]) or 0) + 1, ARGV[5])
  end
end
redis.call('HSET', KEYS[2], 'mtime', ARGV[3])
local n = 0
for i = 7, #ARGV, 2 do
  local uuid, json = ARGV[i], ARGV[i + 1]
  if ARGV[6] ~= '1' or uuid == '' or redis.call('SADD', KEYS[3], uuid) == 1 then
    redis.call('RPUSH', KEYS[1], json)
    n = n + 1
  end
end
return n`,
};

/**
 * Deletes a whole session (`whole` '1') or one subagent transcript (`whole` '0', its encoded `subpath`). KEYS[1] is the
 * session's tag prefix: the per-subpath keys are named here from it (they share its hash tag: one slot). Answers 1.
 */
export const STORE_DELETE: LuaScript<'tag', 'whole' | 'subpath'> = {
  name: 'storeDelete',
  keys: ['tag'],
  argv: ['whole', 'subpath'],
  lua: `
local base = KEYS[1]
local function drop(part)
  redis.call('DEL', base .. ':' .. part, base .. ':meta:' .. part, base .. ':uuids:' .. part)
end
if ARGV[1] == '1' then
  drop('main')
  for _, sub in ipairs(redis.call('ZRANGE', base .. ':subkeys', 0, -1)) do drop('sub:' .. sub) end
  redis.call('DEL', base .. ':subkeys')
else
  drop('sub:' .. ARGV[2])
  redis.call('ZREM', base .. ':subkeys', ARGV[2])
end
return 1`,
};
