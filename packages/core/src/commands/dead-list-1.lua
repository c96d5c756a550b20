--[[
  Lists dead letters of one slot, oldest first.

  KEYS[1] dead ZSET, KEYS[2..] every data bucket HASH of the slot, in bucket order
  ARGV[1] offset, ARGV[2] limit
  Returns flat {id, deadAt, scheduledAt, attempts, lastError, payload, ...}
]]
local rcall = redis.call
-- @include stored
local offset = tonumber(ARGV[1])
local page = rcall('ZRANGE', KEYS[1], offset, offset + tonumber(ARGV[2]) - 1, 'WITHSCORES')
local result = {}
for i = 1, #page, 2 do
  local id = page[i]
  local deadAt = tonumber(page[i + 1])
  local value = rcall('HGET', bucket_key(id, 2), id)
  if value then
    local meta, rest = unpack_stored(value)
    local n = #result
    result[n + 1] = id
    result[n + 2] = deadAt
    result[n + 3] = deadAt - meta[1]
    result[n + 4] = meta[2]
    result[n + 5] = string.sub(rest, 1, meta[3])
    result[n + 6] = string.sub(rest, meta[3] + 1)
  end
end
return result
