--[[
  Deletes dead letters.

  KEYS[1] dead ZSET, KEYS[2] layout marker, KEYS[3..] every data bucket HASH of the slot, in bucket order
  ARGV[1] most to delete when no ids are given, ARGV[2] the caller's slot count (`check_layout`),
  ARGV[3..] ids (none = the oldest ARGV[1] dead letters)
  Returns how many were deleted, or the error of `check_layout`.
]]
local rcall = redis.call
-- @include stored
local ids = {}
if #ARGV > 2 then
  for i = 3, #ARGV do ids[#ids + 1] = ARGV[i] end
else
  ids = rcall('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
end
-- Every id is checked before anything changes; a whole-slot call waits for the end of a move.
local named = #ARGV > 2
if not named then
  local refused = check_layout(KEYS[2], ARGV[2], nil)
  if refused then return refused end
end
for i = 1, #ids do
  local refused = named and check_layout(KEYS[2], ARGV[2], bucket_index(ids[i], DATA_BUCKETS))
  if refused then return refused end
end
local deleted = 0
for i = 1, #ids do
  local id = ids[i]
  if rcall('ZREM', KEYS[1], id) == 1 then
    rcall('HDEL', bucket_key(id, 3), id)
    deleted = deleted + 1
  end
end
return deleted
