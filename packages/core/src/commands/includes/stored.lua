--[[
  Shared helpers, inlined by commands/index.ts where a script says `-- @include stored`.
  Expects `local rcall = redis.call` above it.

  The value of an id in its data bucket is "<meta>|<error text><payload JSON text>", where meta is
  comma-separated integers:
    [1] offset: reference time minus scheduledAt (reference = the due score when pending, [5] when
        firing, the dead score when dead), so the common case stores a short number, not a date;
    [2] attempts made, [3] byte length of the error text that follows the bar,
    [4] fencing token (firing only, 0 otherwise), [5] due time of the claimed run (firing only).
  A pending timeout never claimed stores only [1]; a pending or dead one [1],[2],[3]; a firing
  one all five. `read_stored` checks a value before any script writes on its strength.
]]
-- Data buckets per slot: DATA_BUCKETS in store/slot-of.ts (a spec checks they agree).
local DATA_BUCKETS = 128

local function now_ms()
  local t = rcall('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function int(x)
  return string.format('%d', x)
end

-- Reads a stored value. Returns meta (5 numbers, missing ones 0) and the text after the bar, or
-- nil and what is wrong when the value is not in this layout (written by another tool or version,
-- truncated by a restore): callers check before they write, so one bad value never stops a slot.
local function read_stored(value)
  local bar = string.find(value, '|', 1, true)
  if not bar then return nil, 'no "|" after the meta fields' end
  local meta = {0, 0, 0, 0, 0}
  local count = 0
  for field in string.gmatch(string.sub(value, 1, bar - 1) .. ',', '([^,]*),') do
    count = count + 1
    -- At most 16 digits: every value stays an exact integer in Lua's doubles.
    if count > 5 or not string.match(field, '^%-?%d+$') or #field > 17 then
      return nil, 'meta field ' .. count .. ' is not a whole number'
    end
    meta[count] = tonumber(field)
  end
  if count ~= 1 and count ~= 3 and count ~= 5 then return nil, count .. ' meta fields (1, 3 or 5 expected)' end
  local rest = string.sub(value, bar + 1)
  if meta[2] < 0 or meta[3] < 0 or meta[4] < 0 or meta[5] < 0 then return nil, 'a negative meta field' end
  if meta[3] > #rest then return nil, 'error length past the end of the value' end
  return meta, rest
end

local function pack_stored(meta, rest)
  -- One string.format per value: about 1.7 times faster than joining int() pieces.
  if meta[4] ~= 0 then
    return string.format('%d,%d,%d,%d,%d|', meta[1], meta[2], meta[3], meta[4], meta[5]) .. rest
  end
  if meta[2] == 0 and meta[3] == 0 then
    return string.format('%d|', meta[1]) .. rest
  end
  return string.format('%d,%d,%d|', meta[1], meta[2], meta[3]) .. rest
end

-- The fencing token of a stored value (meta [4]), or 0 when it is not firing: one pattern match
-- instead of unpacking every field.
local function stored_token(value)
  local token = string.match(value, '^[^,|]*,[^,|]*,[^,|]*,(%d+)')
  if token then return tonumber(token) end
  return 0
end

-- The data bucket number (0-based) of an id among `count` buckets; same function as bucketOf()
-- in slot-of.ts.
local function bucket_index(id, count)
  local hash = 0
  for i = 1, #id do
    hash = (hash * 65599 + string.byte(id, i)) % 2147483647
  end
  return hash % count
end

-- The data bucket of an id when KEYS[first..#KEYS] are every bucket of the slot, in order.
local function bucket_key(id, first)
  return KEYS[first + bucket_index(id, #KEYS - first + 1)]
end

local function earliest_due(dueKey)
  local first = rcall('ZRANGE', dueKey, 0, 0, 'WITHSCORES')
  if first[2] then return tonumber(first[2]) end
  return nil
end

-- Wakes sleeping pollers when a timeout became due ahead of everything the slot held before.
local function wake_if_ahead(before, dueAt, channel, slot)
  if before == nil or dueAt < before then
    rcall('PUBLISH', channel, slot .. ':' .. int(dueAt))
  end
end

-- Texts stored as the last error of a timeout that a script, not a handler, gave up on. The engine
-- reports them as they come back in replies, so they are written here only.
local LEASE_EXPIRED = 'lease expired: the worker died or the handler ran longer than leaseMs'
local CORRUPT = 'corrupt stored entry: '
local MISSING = 'missing stored entry: the id was in the slot but its data was gone'
local LATE = 'late: claimed more than the topic\'s late.afterMs after its due time'

-- Moves `id` to the dead letters (time of death `now`) with `err` as its last error.
local function bury(deadKey, bucket, id, now, scheduledAt, attempts, err, payload)
  rcall('ZADD', deadKey, now, id)
  rcall('HSET', bucket, id, pack_stored({now - scheduledAt, attempts, #err, 0, 0}, err .. payload))
end

-- Retry delay after `attempt` failed: exponential with equal jitter, as retryDelayMs() in
-- support/retry-backoff.ts. `fraction` in [0, 1) stands for the random pick.
local function retry_delay(attempt, baseMs, capMs, fraction)
  local exponent = math.min(math.max(attempt, 1) - 1, 62)
  local ceiling = math.min(capMs, baseMs * 2 ^ exponent)
  local half = ceiling / 2
  return math.min(ceiling, math.floor(half + fraction * half + 0.5))
end

-- The next fencing tokens of a slot: `count` tokens above both the slot's counter and now * 1024
-- (the server clock in 1/1024 ms). The clock floor keeps tokens growing when the counter was lost
-- or went back (a restart from an older AOF or RDB, a failover to a replica that lagged): a token
-- handed after the loss is above every token handed before it, unless the slot handed out more
-- than 1024 tokens per millisecond for longer than the gap. Returns the last token before the new ones.
local function take_tokens(seqKey, now, count)
  local last = tonumber(rcall('GET', seqKey)) or 0
  local floor = now * 1024
  if last < floor then last = floor end
  rcall('SET', seqKey, string.format('%d', last + count))
  return last
end

-- The slot's layout marker (see docs/REDIS-LAYOUT.md, "Changing a topic's slot count"): absent or
-- empty while no migration holds the slot; 'move:<slots>:<bucket>' while a migration to <slots>
-- moves the slot's entries, one data bucket at a time (buckets below <bucket> are done, <bucket>
-- is being moved, the others wait); '<slots>' once the whole slot was moved. Returns nil when a
-- call on an id of data bucket `bucket`, routed by `layout` (the caller's slot count, '0' when it
-- does not route), may go on here, else the error reply to give: 'DTLOCKED <slots>' while its
-- bucket is being moved (call again shortly), 'DTMOVED <slots>' once it was moved (route the id by
-- <slots>). A call on a whole slot (bucket nil) waits for the end of a move.
local function check_layout(markerKey, layout, bucket)
  local marker = rcall('GET', markerKey)
  if not marker or marker == '' then return nil end
  local slots, moving = string.match(marker, '^move:(%d+):(%d+)$')
  if not slots then
    if layout == '0' or layout == marker then return nil end
    return redis.error_reply('DTMOVED ' .. marker)
  end
  moving = tonumber(moving)
  if bucket == nil or bucket == moving then return redis.error_reply('DTLOCKED ' .. slots) end
  if layout == '0' or layout == slots or bucket > moving then return nil end
  return redis.error_reply('DTMOVED ' .. slots)
end

-- The data bucket a migration is moving in this slot now, or nil.
local function moving_bucket(markerKey)
  local marker = rcall('GET', markerKey)
  if not marker then return nil end
  return tonumber(string.match(marker, '^move:%d+:(%d+)$'))
end

-- The slot a migration moved the delivery of `id` holding `token` to (its ack, fail or release is
-- then sent on there), or nil. A forward is '<token>:<slot>'.
local function forwarded(fwdKey, id, token)
  local forward = rcall('HGET', fwdKey, id)
  if not forward then return nil end
  local held, slot = string.match(forward, '^(%d+):(%d+)$')
  if tonumber(held) ~= token then return nil end
  return slot
end

-- The ids a dead-letter call acts on: ARGV[first..] when the caller named them, else the oldest
-- `limit` of the dead ZSET. Every id is checked before anything changes (a whole-slot call waits
-- for the end of a move). Returns the ids, or nil and the refusal of `check_layout`.
local function chosen_dead_ids(deadKey, markerKey, layout, limit, first)
  local ids = {}
  if #ARGV < first then
    ids = rcall('ZRANGE', deadKey, 0, tonumber(limit) - 1)
    local refused = check_layout(markerKey, layout, nil)
    if refused then return nil, refused end
    return ids
  end
  for i = first, #ARGV do ids[#ids + 1] = ARGV[i] end
  for i = 1, #ids do
    local refused = check_layout(markerKey, layout, bucket_index(ids[i], DATA_BUCKETS))
    if refused then return nil, refused end
  end
  return ids
end
