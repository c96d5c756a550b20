--[[
  Cancels one pending timeout.

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3] the id's data bucket HASH, KEYS[4] layout marker
  ARGV[1] id, ARGV[2] the caller's slot count (`check_layout`)
  Returns 1 cancelled, 2 firing (claimed now; nothing changed), 0 not found (dead letters included),
  or the error of `check_layout`.
]]
local rcall = redis.call
-- @include stored
local id = ARGV[1]
local refused = check_layout(KEYS[4], ARGV[2], bucket_index(id, DATA_BUCKETS))
if refused then return refused end
if rcall('ZREM', KEYS[1], id) == 1 then
  rcall('HDEL', KEYS[3], id)
  return 1
end
if rcall('ZSCORE', KEYS[2], id) then return 2 end
return 0
