--[[
  Hands claimed timeouts back as due now without spending an attempt (shutdown), for the entries
  whose fencing token is still current.

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3..] every data bucket HASH of the slot, in bucket order
  ARGV[1] wake channel, ARGV[2] slot number, then pairs: id, fencing token, ...
  Returns how many were released.
]]
local rcall = redis.call
-- @include stored
local now = now_ms()
local before = earliest_due(KEYS[1])
local released = 0
for i = 3, #ARGV, 2 do
  local id = ARGV[i]
  if rcall('ZSCORE', KEYS[2], id) then
    local bucket = bucket_key(id, 3)
    local value = rcall('HGET', bucket, id)
    if value then
      local meta, rest = unpack_stored(value)
      if meta[4] == tonumber(ARGV[i + 1]) then
        local scheduledAt = meta[5] - meta[1]
        meta[1], meta[2], meta[4], meta[5] = now - scheduledAt, meta[2] - 1, 0, 0
        rcall('ZREM', KEYS[2], id)
        rcall('ZADD', KEYS[1], now, id)
        rcall('HSET', bucket, id, pack_stored(meta, rest))
        released = released + 1
      end
    end
  end
end
if released > 0 then wake_if_ahead(before, now, ARGV[1], ARGV[2]) end
return released
