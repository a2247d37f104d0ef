/** The Lua scripts of the Redis store (decision 0039); link.ts lays out their keys and arguments. */

/** A commit: `busy` (locked by another), `epoch` (seeded since), `stale` (a version moved), or written, stamps too (decision 0040). */
const COMMIT = `
local lock = redis.call('GET', KEYS[4])
if lock and lock ~= ARGV[4] then return {'busy', 0, 0} end
if ARGV[6] ~= '' and redis.call('HGET', KEYS[3], 'epoch') ~= ARGV[6] then return {'epoch', 0, 0} end
local v = tonumber(redis.call('HGET', KEYS[1], '_v') or '0')
local g = tonumber(redis.call('HGET', KEYS[3], '_v') or '0')
if ARGV[2] ~= '*' and (v ~= tonumber(ARGV[2]) or g ~= tonumber(ARGV[3])) then return {'stale', v, g} end
local i = 7
-- Writes the (field, value) pairs from ARGV[i] up to ARGV[upto - 1] into hash ('': deleted), each scored in chg.
local function write(hash, upto, chg, v)
  while i < upto do
    local f, val = ARGV[i], ARGV[i + 1]
    i = i + 2
    if val == '' then redis.call('HDEL', hash, f) else redis.call('HSET', hash, f, val) end
    if chg then redis.call('ZADD', chg, v, f) end
  end
end
local n = tonumber(ARGV[5])
if n > 0 then
  v = v + 1
  redis.call('HSET', KEYS[1], '_v', v)
  redis.call('SET', KEYS[6], v)
  redis.call('SADD', KEYS[5], ARGV[1])
  write(KEYS[1], 7 + 2 * n, KEYS[2], v)
end
if i <= #ARGV then
  g = g + 1
  redis.call('HSET', KEYS[3], '_v', g)
  redis.call('SET', KEYS[7], (redis.call('HGET', KEYS[3], 'epoch') or '') .. '/' .. g)
  write(KEYS[3], #ARGV + 1)
end
return {'ok', v, g}
`;

const PULL = `
local v = tonumber(redis.call('HGET', KEYS[1], '_v') or '0')
local g = tonumber(redis.call('HGET', KEYS[3], '_v') or '0')
local global = {}
if g ~= tonumber(ARGV[2]) then global = redis.call('HGETALL', KEYS[3]) end
local fields = {}
if v ~= tonumber(ARGV[1]) then
  if v < tonumber(ARGV[1]) then fields = redis.call('HKEYS', KEYS[1])
  else fields = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[1], '+inf') end
end
for i = 3, #ARGV do fields[#fields + 1] = ARGV[i] end
local values = {}
for i = 1, #fields, 4000 do
  local part = redis.call('HMGET', KEYS[1], unpack(fields, i, math.min(i + 3999, #fields)))
  for j = 1, #part do values[#values + 1] = part[j] end
end
return {v, g, global, fields, values, redis.call('HGET', KEYS[3], 'epoch') or ''}
`;

/** Appends entries (ARGV[3..]) to a capped stream, each tagged with its process (ARGV[1]); one call per batch. */
const APPEND = `
for i = 3, #ARGV do redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'o', ARGV[1], 'e', ARGV[i]) end
return #ARGV - 2
`;

/** Lets go of the control lock (taken with SET NX PX) if this holder still has it. */
const UNLOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
/** Writes the first state when there is none (the epoch field marks it); returns 1 when it did. */
const SEED = `
if redis.call('HEXISTS', KEYS[1], 'epoch') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'epoch', ARGV[1])
redis.call('SET', KEYS[2], ARGV[1] .. '/' .. redis.call('HINCRBY', KEYS[1], '_v', 1))
return 1
`;

/** Each script by the name link.ts calls it. */
export const SCRIPTS = { commit: COMMIT, pull: PULL, unlock: UNLOCK, seed: SEED, append: APPEND };
