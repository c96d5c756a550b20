--[[
  Counts of one slot.

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3] dead ZSET
  Returns {pending, firing, dead, due time of the oldest overdue pending timeout or nil, now}
]]
local rcall = redis.call
-- @include stored
local now = now_ms()
local result = {rcall('ZCARD', KEYS[1]), rcall('ZCARD', KEYS[2]), rcall('ZCARD', KEYS[3]), false, now}
local first = earliest_due(KEYS[1])
if first and first <= now then result[4] = first end
return result
