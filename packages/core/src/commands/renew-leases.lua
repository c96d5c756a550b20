--[[
  Renews the leases of running deliveries of one slot (a handler that runs long), each only while
  its fencing token is still current.

  KEYS[1] lease ZSET, KEYS[2] forwarded deliveries HASH,
  KEYS[3..] data bucket HASHes of the slot: every bucket in bucket order, or (the `few`
           registration) only the buckets of the ids in the call, padded with repeats
  ARGV: one group of four per delivery: id, fencing token, lease ms, index in KEYS of its data bucket
  Returns one entry per delivery, in order: the lease expiry now (raised to server now + lease ms,
  never lowered), 0 stale (the token is not the current lease's: re-claimed, rescheduled, released,
  acked, or gone), or 'fwd:<slot>' when a slot migration moved the delivery to that slot.
  A lease that ended but that no claim has recovered yet is still the delivery's: it is renewed,
  as an ack would be accepted.
]]
local rcall = redis.call
-- @include stored
local now = now_ms()
local result = {}
for i = 1, #ARGV, 4 do
  local id = ARGV[i]
  local token = tonumber(ARGV[i + 1])
  local renewed = 0
  if token and token > 0 then
    local value = rcall('HGET', KEYS[tonumber(ARGV[i + 3])], id)
    local current = value and stored_token(value) == token and rcall('ZSCORE', KEYS[1], id)
    if current then
      renewed = math.max(tonumber(current), now + tonumber(ARGV[i + 2]))
      rcall('ZADD', KEYS[1], renewed, id)
    else
      local moved = forwarded(KEYS[2], id, token)
      if moved then renewed = 'fwd:' .. moved end
    end
  end
  result[#result + 1] = renewed
end
return result
