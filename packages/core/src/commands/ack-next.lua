--[[
  Acknowledges one fired occurrence of a recurring schedule and, in the same step, writes its next
  occurrence under the same id: only when the fencing token is still current, so a worker whose
  lease was lost can neither ack nor schedule again. The next occurrence starts afresh (attempts
  and last error cleared), like a new schedule.

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3] the id's data bucket HASH,
  KEYS[4] forwarded deliveries HASH
  ARGV[1] id, ARGV[2] fencing token, ARGV[3] next due time (ms, absolute), ARGV[4] payload JSON
  text of the next occurrence, ARGV[5] wake channel, ARGV[6] slot number
  Returns 1 acked and next written, 0 stale (replaced, re-claimed, released, or gone; nothing
  changed), or 'fwd:<slot>' when a slot migration moved this delivery to that slot of the topic.
]]
local rcall = redis.call
-- @include stored
local id = ARGV[1]
local token = tonumber(ARGV[2])
if not token or token <= 0 then return 0 end
local value = rcall('HGET', KEYS[3], id)
if not value or stored_token(value) ~= token or not rcall('ZSCORE', KEYS[2], id) then
  local moved = forwarded(KEYS[4], id, token)
  if moved then return 'fwd:' .. moved end
  return 0
end
local now = now_ms()
local nextAt = tonumber(ARGV[3])
local before = earliest_due(KEYS[1])
rcall('ZREM', KEYS[2], id)
rcall('ZADD', KEYS[1], nextAt, id)
rcall('HSET', KEYS[3], id, string.format('%d', nextAt - now) .. '|' .. ARGV[4])
wake_if_ahead(before, nextAt, ARGV[5], ARGV[6])
return 1
