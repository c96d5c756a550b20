--[[
  Moves dead letters back to due now, attempts and last error reset.

  KEYS[1] due ZSET, KEYS[2] dead ZSET, KEYS[3..] every data bucket HASH of the slot, in bucket order
  ARGV[1] wake channel, ARGV[2] slot number, ARGV[3] most to move when no ids are given,
  ARGV[4..] ids (none = the oldest ARGV[3] dead letters)
  Returns how many were moved.
]]
local rcall = redis.call
-- @include stored
local now = now_ms()
local ids = {}
if #ARGV > 3 then
  for i = 4, #ARGV do ids[#ids + 1] = ARGV[i] end
else
  ids = rcall('ZRANGE', KEYS[2], 0, tonumber(ARGV[3]) - 1)
end
local before = earliest_due(KEYS[1])
local moved = 0
for i = 1, #ids do
  local id = ids[i]
  local deadAt = rcall('ZSCORE', KEYS[2], id)
  if deadAt then
    rcall('ZREM', KEYS[2], id)
    local bucket = bucket_key(id, 3)
    local value = rcall('HGET', bucket, id)
    if value then
      local meta, rest = unpack_stored(value)
      local scheduledAt = tonumber(deadAt) - meta[1]
      rcall('ZADD', KEYS[1], now, id)
      rcall('HSET', bucket, id, pack_stored({now - scheduledAt, 0, 0, 0, 0}, string.sub(rest, meta[3] + 1)))
      moved = moved + 1
    end
  end
end
if moved > 0 then wake_if_ahead(before, now, ARGV[1], ARGV[2]) end
return moved
