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
  -- The stored token is set only while the id is leased (recovery, rescheduling and dead-lettering
  -- reset it to 0, tokens start at 1), so a matching token alone proves the lease is this one.
  local bucket = KEYS[tonumber(ARGV[i + 2])]
  local value = rcall('HGET', bucket, id)
  if value and stored_token(value) == tonumber(ARGV[i + 1]) then
    rcall('HDEL', bucket, id)
    acked[#acked + 1] = id
    done = 1
  end
  result[#result + 1] = done
end
if #acked > 0 then rcall('ZREM', KEYS[1], unpack(acked)) end
return result
