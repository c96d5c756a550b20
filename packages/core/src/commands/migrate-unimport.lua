--[[
  Takes back copies a slot migration wrote into a new slot when their originals changed before
  they could be removed: each only if it is still exactly as written.

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3] dead ZSET, KEYS[4..] every data bucket HASH of the
  slot, in bucket order
  ARGV groups of four as migrate-export returns them: id, state, score, stored value
  Returns how many were taken back.
]]
local rcall = redis.call
-- @include stored
local removed = 0
for i = 1, #ARGV, 4 do
  local id, state = ARGV[i], tonumber(ARGV[i + 1])
  local bucket = bucket_key(id, 4)
  local score = rcall('ZSCORE', KEYS[state], id)
  if score and tonumber(score) == tonumber(ARGV[i + 2]) and (rcall('HGET', bucket, id) or '') == ARGV[i + 3] then
    rcall('ZREM', KEYS[state], id)
    rcall('HDEL', bucket, id)
    removed = removed + 1
  end
end
return removed
