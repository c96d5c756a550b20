--[[
  Lists pending timeouts of one slot, earliest due first (ties in id byte order), without their data.

  KEYS[1] due ZSET
  ARGV[1] offset, ARGV[2] limit
  Returns flat {id, dueAt, id, dueAt, ...}
]]
local rcall = redis.call
local offset = tonumber(ARGV[1])
local page = rcall('ZRANGE', KEYS[1], offset, offset + tonumber(ARGV[2]) - 1, 'WITHSCORES')
for i = 2, #page, 2 do page[i] = tonumber(page[i]) end
return page
