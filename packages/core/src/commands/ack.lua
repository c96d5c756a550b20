--[[
  Acknowledges one fired timeout: removes it, only when the fencing token is still current.

  KEYS[1] lease ZSET, KEYS[2] the id's data bucket HASH, KEYS[3] forwarded deliveries HASH
  ARGV[1] id, ARGV[2] fencing token
  Returns 1 removed, 0 stale (replaced, re-claimed, released, or gone), or 'fwd:<slot>' when a
  slot migration moved this delivery to that slot of the topic: ack it there.
]]
local rcall = redis.call
-- @include stored
local id = ARGV[1]
local value = rcall('HGET', KEYS[2], id)
local token = tonumber(ARGV[2])
-- The stored token is set only while the id is leased (see ack-many.lua); tokens start above 0,
-- so 0 (what a pending value reads as) never matches.
if not token or token <= 0 then return 0 end
if not value or stored_token(value) ~= token then
  local moved = forwarded(KEYS[3], id, token)
  if moved then return 'fwd:' .. moved end
  return 0
end
rcall('ZREM', KEYS[1], id)
rcall('HDEL', KEYS[2], id)
return 1
