--[[
  Records a handler failure, only when the fencing token is still current: retry later, or move to
  the dead letters when the attempt count has reached maxAttempts.

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3] dead ZSET, KEYS[4] the id's data bucket HASH,
  KEYS[5] forwarded deliveries HASH
  ARGV[1] id, ARGV[2] fencing token, ARGV[3] retry delay ms, ARGV[4] max attempts,
  ARGV[5] error text (already truncated), ARGV[6] wake channel, ARGV[7] slot number
  Returns {1, retryAt} retried, {2, deadAt} dead, {0} stale (the token is not the current one, or
  the value is unreadable: the claim that meets its expired lease dead-letters it), {3, slot}
  forwarded (a slot migration moved this delivery to that slot: record the failure there).
]]
local rcall = redis.call
-- @include stored
local id = ARGV[1]
local token = tonumber(ARGV[2])
if not token or token <= 0 then return {0} end
if not rcall('ZSCORE', KEYS[2], id) then
  local moved = forwarded(KEYS[5], id, token)
  if moved then return {3, tonumber(moved)} end
  return {0}
end
local value = rcall('HGET', KEYS[4], id)
if not value then return {0} end
local meta, rest = read_stored(value)
if not meta or meta[4] ~= token then return {0} end
local now = now_ms()
local scheduledAt = meta[5] - meta[1]
local payload = string.sub(rest, meta[3] + 1)
local err = ARGV[5]
rcall('ZREM', KEYS[2], id)
if meta[2] >= tonumber(ARGV[4]) then
  bury(KEYS[3], KEYS[4], id, now, scheduledAt, meta[2], err, payload)
  return {2, now}
end
local retryAt = now + tonumber(ARGV[3])
local before = earliest_due(KEYS[1])
rcall('ZADD', KEYS[1], retryAt, id)
rcall('HSET', KEYS[4], id, pack_stored({retryAt - scheduledAt, meta[2], #err, 0, 0}, err .. payload))
wake_if_ahead(before, retryAt, ARGV[6], ARGV[7])
return {1, retryAt}
