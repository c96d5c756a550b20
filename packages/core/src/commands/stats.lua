--[[
  Counts of one slot, and its pause mark.

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3] dead ZSET, KEYS[4] flow HASH (pause.lua: field `at`)
  Returns {pending, firing, dead, due time of the oldest overdue pending timeout or nil, now,
  the time the slot was paused or nil}
]]
local rcall = redis.call
-- @include stored
local now = now_ms()
local result = {rcall('ZCARD', KEYS[1]), rcall('ZCARD', KEYS[2]), rcall('ZCARD', KEYS[3]), false, now, false}
local first = earliest_due(KEYS[1])
if first and first <= now then result[4] = first end
local paused_at = rcall('HGET', KEYS[4], 'at')
if paused_at then result[6] = tonumber(paused_at) end
return result
