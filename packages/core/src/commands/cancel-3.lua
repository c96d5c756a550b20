--[[
  Cancels one pending timeout.

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3] the id's data bucket HASH
  ARGV[1] id
  Returns 1 cancelled, 2 firing (claimed now; nothing changed), 0 not found (dead letters included).
]]
local rcall = redis.call
local id = ARGV[1]
if rcall('ZREM', KEYS[1], id) == 1 then
  rcall('HDEL', KEYS[3], id)
  return 1
end
if rcall('ZSCORE', KEYS[2], id) then return 2 end
return 0
