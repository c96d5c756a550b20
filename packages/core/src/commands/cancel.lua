--[[
  Cancels one timeout: a pending one is removed; a firing one is removed too and its running
  delivery told to stop (`cancel_firing`).

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3] the id's data bucket HASH, KEYS[4] layout marker
  ARGV[1] id, ARGV[2] the caller's slot count (`check_layout`), ARGV[3] wake channel
  Returns 1 cancelled (was pending), 2 firing (was claimed: removed, its delivery told), 0 not found
  (dead letters included), or the error of `check_layout`.
]]
local rcall = redis.call
-- @include stored
-- @include firing-cancel
local id = ARGV[1]
local refused = check_layout(KEYS[4], ARGV[2], bucket_index(id, DATA_BUCKETS))
if refused then return refused end
if rcall('ZREM', KEYS[1], id) == 1 then
  rcall('HDEL', KEYS[3], id)
  return 1
end
if rcall('ZSCORE', KEYS[2], id) then
  cancel_firing(KEYS[2], KEYS[3], id, ARGV[3])
  return 2
end
return 0
