--[[
  Deletes dead letters.

  KEYS[1] dead ZSET, KEYS[2] layout marker, KEYS[3..] every data bucket HASH of the slot, in bucket order
  ARGV[1] most to delete when no ids are given, ARGV[2] the caller's slot count (`check_layout`),
  ARGV[3..] ids (none = the oldest ARGV[1] dead letters)
  Returns how many were deleted, or the error of `check_layout`.
]]
local rcall = redis.call
-- @include stored
local ids, refused = chosen_dead_ids(KEYS[1], KEYS[2], ARGV[2], ARGV[1], 3)
if not ids then return refused end
local deleted = 0
for i = 1, #ids do
  local id = ids[i]
  if rcall('ZREM', KEYS[1], id) == 1 then
    rcall('HDEL', bucket_key(id, 3), id)
    deleted = deleted + 1
  end
end
return deleted
