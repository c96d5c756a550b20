--[[
  Reads one timeout in any state.

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3] dead ZSET, KEYS[4] the id's data bucket HASH
  ARGV[1] id
  Returns nil when absent, else {state, dueAt, scheduledAt, attempt, fencingToken, leaseExpiresAt, lastError, payload}
  with state 1 pending, 2 firing, 3 dead (dueAt = time of death); leaseExpiresAt 0 unless firing.
]]
local rcall = redis.call
-- @include stored
local id = ARGV[1]
local value = rcall('HGET', KEYS[4], id)
if not value then return nil end
local meta, rest = unpack_stored(value)
local state, ref, dueAt, leaseExpiresAt = 1, nil, nil, 0
local score = rcall('ZSCORE', KEYS[1], id)
if score then
  ref = tonumber(score)
  dueAt = ref
else
  score = rcall('ZSCORE', KEYS[2], id)
  if score then
    state, ref, dueAt, leaseExpiresAt = 2, meta[5], meta[5], tonumber(score)
  else
    score = rcall('ZSCORE', KEYS[3], id)
    if not score then return nil end
    state, ref = 3, tonumber(score)
    dueAt = ref
  end
end
return {state, dueAt, ref - meta[1], meta[2], meta[4], leaseExpiresAt, string.sub(rest, 1, meta[3]), string.sub(rest, meta[3] + 1)}
