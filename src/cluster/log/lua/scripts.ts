/**
 * The Lua scripts of a session's log, each with its contract: the names of its KEYS and of its
 * ARGV in order (a variadic tail where it has one) and what it answers. Redis runs a script
 * atomically, which is what the log's guarantees rest on: an append lands only while the caller
 * holds the lease (fencing), a warm session is claimed or discarded but never both, a session is
 * deleted only if nothing changed since it was read.
 */
import type { LuaScript } from './call.ts';

/** A script with its contract. */
const script = <K extends string, A extends string>(s: LuaScript<K, A>): LuaScript<K, A> => s;

/** Takes the lease if it is free, or extends it for its holder. Answers 1 (held by the token now) or 0 (another's). */
export const ACQUIRE = script({
  name: 'acquire',
  keys: ['owner'],
  argv: ['token', 'leaseMs'],
  lua: `
local cur = redis.call('GET', KEYS[1])
if not cur then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if cur == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0`,
});

/** Extends the lease for its holder. Answers 1 (extended), 0 (expired: nobody holds it) or -1 (another holds it). */
export const RENEW = script({
  name: 'renew',
  keys: ['owner'],
  argv: ['token', 'leaseMs'],
  lua: `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
return 0`,
});

/** Gives the lease up if the token holds it. Answers 1 (released) or 0. */
export const RELEASE = script({
  name: 'release',
  keys: ['owner'],
  argv: ['token'],
  lua: `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0`,
});

/**
 * The start of every script that writes only for the lease's holder (KEYS[1] the owner key, ARGV[1] the token): an
 * error reply `FENCED expired` (nobody holds the lease) or `FENCED taken` (another does) otherwise. The one place
 * these replies are read is `fencedError` (fence.ts).
 */
const FENCE = `
local cur = redis.call('GET', KEYS[1])
if cur ~= ARGV[1] then
  if not cur then return redis.error_reply('FENCED expired') end
  return redis.error_reply('FENCED taken')
end`;

/**
 * Appends messages in order, fenced, and extends the lease by `leaseMs` ('0': not) as a renewal does. The tail of
 * ARGV is (kind, uuid, json) triplets: kind `d` (durable: to the log, once per uuid; '' for none) or `e` (ephemeral:
 * to the capped, expiring live stream, after the last durable id). Answers each message's stream id, in order (the
 * earlier id for a uuid the log has).
 *
 * Ordered writers (`writer` non-empty) number their batches 1, 2, 3…: a batch that is not the next of its writer is
 * refused before anything is written (`ORDER gap <last>`), one at or below the last is answered `ORDER landed` (it
 * was appended; its reply was lost). A new writer starts at 1. `writer` '' appends without the check.
 */
export const APPEND = script({
  name: 'append',
  keys: ['owner', 'log', 'live', 'uuids', 'order'],
  argv: ['token', 'liveMaxLen', 'liveTtlMs', 'leaseMs', 'writer', 'seq'],
  lua: `${FENCE}
if ARGV[5] ~= '' then
  local last = 0
  local cur = redis.call('GET', KEYS[5])
  if cur then
    local space = string.find(cur, ' ', 1, true)
    if space and string.sub(cur, 1, space - 1) == ARGV[5] then last = tonumber(string.sub(cur, space + 1)) end
  end
  local seq = tonumber(ARGV[6])
  if seq <= last then return redis.error_reply('ORDER landed') end
  if seq ~= last + 1 then return redis.error_reply('ORDER gap ' .. last) end
  redis.call('SET', KEYS[5], ARGV[5] .. ' ' .. ARGV[6])
end
if ARGV[4] ~= '0' then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
local ids = {}
local last = nil
local live = false
local lastLive = nil
for i = 7, #ARGV, 3 do
  local kind, uuid, json = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  if kind == 'd' then
    local known = false
    if uuid ~= '' then known = redis.call('HGET', KEYS[4], uuid) end
    if known then
      ids[#ids + 1] = known
    else
      if not lastLive then
        local top = redis.call('XREVRANGE', KEYS[3], '+', '-', 'COUNT', 1)
        if top[1] then lastLive = top[1][1] else lastLive = '0-0' end
      end
      last = redis.call('XADD', KEYS[2], '*', 'm', json, 'o', ARGV[1], 'l', lastLive)
      if uuid ~= '' then redis.call('HSET', KEYS[4], uuid, last) end
      ids[#ids + 1] = last
    end
  else
    if not last then
      local top = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
      if top[1] then last = top[1][1] else last = '0-0' end
    end
    lastLive = redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[2], '*', 'm', json, 'a', last)
    ids[#ids + 1] = lastLive
    live = true
  end
end
if live then redis.call('PEXPIRE', KEYS[3], ARGV[3]) end
return ids`,
});

/**
 * Deletes every key of the session, only if nothing was appended since `lastId` ('0-0': the log must be empty). With
 * `token` '*' nothing else is checked; otherwise the lease must be free or the token's, and every inbox entry handled
 * (an inbox with entries and no cursor refuses). Answers 1 (deleted), 0 (appended since), -1 (another owner holds the
 * lease) or -2 (input waits).
 */
export const DELETE_IF_UNCHANGED = script({
  name: 'deleteIfUnchanged',
  keys: ['log', 'owner', 'live', 'uuids', 'inbox', 'cursor', 'state', 'ready', 'pooled', 'order'],
  argv: ['lastId', 'token'],
  lua: `
local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local id = '0-0'
if top[1] then id = top[1][1] end
if id ~= ARGV[1] then return 0 end
if ARGV[2] == '*' then
  redis.call('DEL', unpack(KEYS))
  return 1
end
local cur = redis.call('GET', KEYS[2])
if cur and cur ~= ARGV[2] then return -1 end
local input = redis.call('XREVRANGE', KEYS[5], '+', '-', 'COUNT', 1)
if input[1] then
  local cursor = redis.call('GET', KEYS[6])
  if not cursor then return -2 end
  local a, b = string.match(input[1][1], '(%d+)-(%d+)')
  local c, d = string.match(cursor, '(%d+)-(%d+)')
  if tonumber(a) > tonumber(c) or (tonumber(a) == tonumber(c) and tonumber(b) > tonumber(d)) then return -2 end
end
redis.call('DEL', unpack(KEYS))
return 1`,
});

/**
 * Takes a warm session for a client: deletes its ready and pooled marks and adds `line` (unique per claim) to its
 * empty inbox, only while the ready mark is there (the worker's discard deletes the mark in the script that checks
 * the inbox, so a claim lands before the discard, which then refuses, or finds no mark). An inbox with entries was
 * claimed already (the client's input came first): nothing is added. Answers 1 (claimed: also when the inbox's first
 * line is this claim's, so a retried claim whose answer was lost says so again) or 0 (not ready: discarded).
 */
export const CLAIM_WARM = script({
  name: 'claimWarm',
  keys: ['ready', 'inbox', 'pooled'],
  argv: ['line'],
  lua: `
if redis.call('DEL', KEYS[1]) == 0 then
  local first = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', 1)
  if first[1] and first[1][2][2] == ARGV[1] then return 1 end
  return 0
end
redis.call('DEL', KEYS[3])
if redis.call('XLEN', KEYS[2]) == 0 then redis.call('XADD', KEYS[2], '*', 'l', ARGV[1]) end
return 1`,
});

/**
 * Records that the owner handled the inbox up to `inputId`, fenced: trims the inbox before `keepFrom` ('' : no trim)
 * and keeps a state-setting request's line under `field` ('': none). Answers 1.
 */
export const SET_CURSOR = script({
  name: 'setCursor',
  keys: ['owner', 'cursor', 'inbox', 'state'],
  argv: ['token', 'inputId', 'keepFrom', 'field', 'line'],
  lua: `${FENCE}
redis.call('SET', KEYS[2], ARGV[2])
if ARGV[3] ~= '' then redis.call('XTRIM', KEYS[3], 'MINID', ARGV[3]) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[4], ARGV[4], ARGV[5]) end
return 1`,
});

/** Drops state requests a new owner would handle again, fenced; the tail of ARGV is the fields. Answers 1. */
export const FORGET_STATE = script({
  name: 'forgetState',
  keys: ['owner', 'state'],
  argv: ['token'],
  lua: `${FENCE}
for i = 2, #ARGV do redis.call('HDEL', KEYS[2], ARGV[i]) end
return 1`,
});
