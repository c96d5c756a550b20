--[[
  Deletes dead letters.

  KEYS[1] dead ZSET, KEYS[2..] every data bucket HASH of the slot, in bucket order
  ARGV[1] most to delete when no ids are given, ARGV[2..] ids (none = the oldest ARGV[1] dead letters)
  Returns how many were deleted.
]]
local rcall = redis.call
-- @include stored
local ids = {}
if #ARGV > 1 then
  for i = 2, #ARGV do ids[#ids + 1] = ARGV[i] end
else
  ids = rcall('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
end
local deleted = 0
for i = 1, #ids do
  local id = ids[i]
  if rcall('ZREM', KEYS[1], id) == 1 then
    rcall('HDEL', bucket_key(id, 2), id)
    deleted = deleted + 1
  end
end
return deleted
