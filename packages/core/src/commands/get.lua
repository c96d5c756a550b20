--[[
  Reads one timeout in any state.

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3] dead ZSET, KEYS[4] the id's data bucket HASH,
  KEYS[5] layout marker
  ARGV[1] id, ARGV[2] the caller's slot count (`check_layout`)
  Returns nil when absent, else {state, dueAt, scheduledAt, attempt, fencingToken, leaseExpiresAt, lastError, payload}
  with state 1 pending, 2 firing, 3 dead (dueAt = time of death); leaseExpiresAt 0 unless firing.
  An id whose stored value is unreadable or missing is still reported in its state, with the
  problem as its last error and the raw value (or null) as its payload; the next claim or fail
  that meets it dead-letters it.
]]
local rcall = redis.call
-- @include stored
local id = ARGV[1]
local refused = check_layout(KEYS[5], ARGV[2], bucket_index(id, DATA_BUCKETS))
if refused then return refused end
local state, score, leaseExpiresAt = 1, rcall('ZSCORE', KEYS[1], id), 0
if not score then
  state, leaseExpiresAt = 2, rcall('ZSCORE', KEYS[2], id)
  if leaseExpiresAt then
    leaseExpiresAt = tonumber(leaseExpiresAt)
  else
    state, score, leaseExpiresAt = 3, rcall('ZSCORE', KEYS[3], id), 0
    if not score then return nil end
  end
end
local value = rcall('HGET', KEYS[4], id)
local meta, rest = nil, MISSING
if value then
  meta, rest = read_stored(value)
  if not meta then rest = CORRUPT .. rest end
end
if state == 2 and meta and meta[4] == 0 then meta, rest = nil, CORRUPT .. 'leased without a fencing token' end
if not meta then
  local at = tonumber(score) or leaseExpiresAt
  return {state, at, at, 0, 0, leaseExpiresAt, rest, value or 'null'}
end
local ref = meta[5]
if state ~= 2 then ref = tonumber(score) end
return {state, ref, ref - meta[1], meta[2], meta[4], leaseExpiresAt, string.sub(rest, 1, meta[3]), string.sub(rest, meta[3] + 1)}
