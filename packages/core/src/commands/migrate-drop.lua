--[[
  Removes entries a slot migration copied to their new slot, each only if it is still exactly as
  it was copied. A firing entry leaves a forward, so its worker's ack, fail or release goes on to
  the new slot; forwards are dropped a day after the last one was written (longer than any lease).

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3] dead ZSET, KEYS[4] forwarded deliveries HASH,
  KEYS[5..] every data bucket HASH of the slot, in bucket order
  ARGV groups of five: id, state, score, stored value (as migrate-export returns them), the slot
  the entry was copied to
  Returns one 1 (removed) or 0 (it changed since: the copy must be taken back) per group.
]]
local rcall = redis.call
-- @include stored
local result = {}
for i = 1, #ARGV, 5 do
  local id, state = ARGV[i], tonumber(ARGV[i + 1])
  local bucket = bucket_key(id, 5)
  local score = rcall('ZSCORE', KEYS[state], id)
  local value = rcall('HGET', bucket, id) or ''
  if score and tonumber(score) == tonumber(ARGV[i + 2]) and value == ARGV[i + 3] then
    rcall('ZREM', KEYS[state], id)
    rcall('HDEL', bucket, id)
    if state == 2 then
      rcall('HSET', KEYS[4], id, string.format('%d', stored_token(value)) .. ':' .. ARGV[i + 4])
      rcall('PEXPIRE', KEYS[4], 86400000)
    end
    result[#result + 1] = 1
  else
    result[#result + 1] = 0
  end
end
return result
