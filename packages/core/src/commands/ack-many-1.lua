--[[
  Acknowledges many fired timeouts of one slot in one call (see ack-2.lua).

  KEYS[1] lease ZSET, KEYS[2..] data bucket HASHes of the slot: every bucket in bucket order, or
  (the `few` registration) only the buckets of the ids in the call, padded with repeats
  ARGV triples: id, fencing token, index in KEYS of the id's data bucket
  Returns one 1 (removed) or 0 (stale) per triple, in order.
]]
local rcall = redis.call
-- @include stored
local result = {}
local acked = {}
for i = 1, #ARGV, 3 do
  local id = ARGV[i]
  local done = 0
  if rcall('ZSCORE', KEYS[1], id) then
    local bucket = KEYS[tonumber(ARGV[i + 2])]
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
