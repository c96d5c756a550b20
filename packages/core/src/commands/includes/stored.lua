--[[
  Shared helpers, inlined by commands/index.ts where a script says `-- @include stored`.
  Expects `local rcall = redis.call` above it.

  The value of an id in its data bucket is "<meta>|<error text><payload JSON text>", where meta is
  comma-separated integers:
    [1] offset: reference time minus scheduledAt (reference = the due score when pending, [5] when
        firing, the dead score when dead), so the common case stores a short number, not a date;
    [2] attempts made, [3] byte length of the error text that follows the bar,
    [4] fencing token (firing only, 0 otherwise), [5] due time of the claimed run (firing only).
  A pending timeout never claimed stores only [1]; a pending or dead one [1],[2],[3]; a firing
  one all five.
]]
local function now_ms()
  local t = rcall('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function int(x)
  return string.format('%d', x)
end

local function unpack_stored(value)
  local bar = string.find(value, '|', 1, true)
  local meta = {0, 0, 0, 0, 0}
  local i = 1
  for field in string.gmatch(string.sub(value, 1, bar - 1), '[^,]+') do
    meta[i] = tonumber(field)
    i = i + 1
  end
  return meta, string.sub(value, bar + 1)
end

local function pack_stored(meta, rest)
  -- One string.format per value: about 1.7 times faster than joining int() pieces.
  if meta[4] ~= 0 then
    return string.format('%d,%d,%d,%d,%d|', meta[1], meta[2], meta[3], meta[4], meta[5]) .. rest
  end
  if meta[2] == 0 and meta[3] == 0 then
    return string.format('%d|', meta[1]) .. rest
  end
  return string.format('%d,%d,%d|', meta[1], meta[2], meta[3]) .. rest
end

-- The fencing token of a stored value (meta [4]), or 0 when it is not firing: one pattern match
-- instead of unpacking every field.
local function stored_token(value)
  local token = string.match(value, '^[^,|]*,[^,|]*,[^,|]*,(%d+)')
  if token then return tonumber(token) end
  return 0
end

-- The data bucket number (0-based) of an id among `count` buckets; same function as bucketOf()
-- in slot-of.ts.
local function bucket_index(id, count)
  local hash = 0
  for i = 1, #id do
    hash = (hash * 65599 + string.byte(id, i)) % 2147483647
  end
  return hash % count
end

-- The data bucket of an id when KEYS[first..#KEYS] are every bucket of the slot, in order.
local function bucket_key(id, first)
  return KEYS[first + bucket_index(id, #KEYS - first + 1)]
end

local function earliest_due(dueKey)
  local first = rcall('ZRANGE', dueKey, 0, 0, 'WITHSCORES')
  if first[2] then return tonumber(first[2]) end
  return nil
end

-- Wakes sleeping pollers when a timeout became due ahead of everything the slot held before.
local function wake_if_ahead(before, dueAt, channel, slot)
  if before == nil or dueAt < before then
    rcall('PUBLISH', channel, slot .. ':' .. int(dueAt))
  end
end
