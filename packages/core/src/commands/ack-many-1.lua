--[[
  Acknowledges many fired timeouts of one slot in one call (see ack-2.lua).

  KEYS[1] lease ZSET, KEYS[2..] every data bucket HASH of the slot, in bucket order
  ARGV pairs: id, fencing token, id, fencing token, ...
  Returns one 1 (removed) or 0 (stale) per pair, in order.
]]
local rcall = redis.call
-- @include stored
local result = {}
local acked = {}
for i = 1, #ARGV, 2 do
  local id = ARGV[i]
  local done = 0
  if rcall('ZSCORE', KEYS[1], id) then
    local bucket = bucket_key(id, 2)
    local value = rcall('HGET', bucket, id)
    if value then
      local meta = unpack_stored(value)
      if meta[4] == tonumber(ARGV[i + 1]) then
        rcall('HDEL', bucket, id)
        acked[#acked + 1] = id
        done = 1
      end
    end
  end
  result[#result + 1] = done
end
if #acked > 0 then rcall('ZREM', KEYS[1], unpack(acked)) end
return result
