--[[
  Acknowledges one fired timeout: removes it, only when the fencing token is still current.

  KEYS[1] lease ZSET, KEYS[2] the id's data bucket HASH
  ARGV[1] id, ARGV[2] fencing token
  Returns 1 removed, 0 stale (replaced, re-claimed, released, or gone).
]]
local rcall = redis.call
-- @include stored
local id = ARGV[1]
local value = rcall('HGET', KEYS[2], id)
-- The stored token is set only while the id is leased (see ack-many-1.lua).
if not value or stored_token(value) ~= tonumber(ARGV[2]) then return 0 end
rcall('ZREM', KEYS[1], id)
rcall('HDEL', KEYS[2], id)
return 1
