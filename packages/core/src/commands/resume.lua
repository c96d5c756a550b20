--[[
  Ends the pause of one slot and wakes its pollers. With shift, every pending due time of the slot
  moves later by the length of the pause (now minus the time the slot was paused), the stored
  offsets with it so that each scheduledAt stays as it was; without, what fell due fires now.

  KEYS[1] pause marker HASH (field `at`), KEYS[2] due ZSET, KEYS[3..] every data bucket HASH of the slot, in bucket order
  ARGV[1] 1 to shift, 0 not to, ARGV[2] wake channel, ARGV[3] slot number
  Returns {now, the time the slot was paused (-1 when it was not: nothing changed), how many due
  times moved}
]]
local rcall = redis.call
-- @include stored
local now = now_ms()
local since = rcall('HGET', KEYS[1], 'at')
if not since then return {now, -1, 0} end
since = tonumber(since)
-- The marker's only field: the key goes with it.
rcall('HDEL', KEYS[1], 'at')
local shifted = 0
local delta = now - since
if ARGV[1] == '1' and delta > 0 then
  local due = rcall('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')
  for i = 1, #due, 2 do
    local id = due[i]
    local bucket = bucket_key(id, 3)
    local value = rcall('HGET', bucket, id)
    local meta, rest = nil, nil
    if value then meta, rest = read_stored(value) end
    -- An unreadable value keeps its text: the claim that meets it dead-letters it.
    if meta then
      meta[1] = meta[1] + delta
      rcall('HSET', bucket, id, pack_stored(meta, rest))
    end
    rcall('ZADD', KEYS[2], tonumber(due[i + 1]) + delta, id)
    shifted = shifted + 1
  end
end
local first = earliest_due(KEYS[2])
rcall('PUBLISH', ARGV[2], ARGV[3] .. ':' .. int(first or now))
return {now, since, shifted}
