--[[
  Lists dead letters of one slot, oldest first.

  KEYS[1] dead ZSET, KEYS[2..] every data bucket HASH of the slot, in bucket order
  ARGV[1] offset, ARGV[2] limit
  Returns flat {id, deadAt, scheduledAt, attempts, lastError, payload, ...}; an unreadable or
  missing value is listed with the problem as its last error and the raw value (or null) as payload.
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
  local meta, rest = nil, MISSING
  if value then
    meta, rest = read_stored(value)
    if not meta then rest = CORRUPT .. rest end
  end
  local n = #result
  result[n + 1] = id
  result[n + 2] = deadAt
  if meta then
    result[n + 3] = deadAt - meta[1]
    result[n + 4] = meta[2]
    result[n + 5] = string.sub(rest, 1, meta[3])
    result[n + 6] = string.sub(rest, meta[3] + 1)
  else
    -- Unreadable or missing: listed with the problem as its error, so an operator can purge it.
    result[n + 3] = deadAt
    result[n + 4] = 0
    result[n + 5] = rest
    result[n + 6] = value or 'null'
  end
end
return result
