--[[
  Acknowledges many fired timeouts of one slot in one call (see ack.lua).

  KEYS[1] lease ZSET, KEYS[2] forwarded deliveries HASH, KEYS[3..] data bucket HASHes of the slot:
  every bucket in bucket order, or (the `few` registration) only the buckets of the ids in the
  call, padded with repeats
  ARGV triples: id, fencing token, index in KEYS of the id's data bucket
  Returns one 1 (removed), 0 (stale) or 'fwd:<slot>' (forwarded, see ack.lua) per triple, in order.
]]
local rcall = redis.call
-- @include stored
-- @include ack-slot
return ack_slot(KEYS, ARGV)
