--[[
  Moves dead letters back to due now, attempts and last error reset.

  KEYS[1] due ZSET, KEYS[2] dead ZSET, KEYS[3] layout marker, KEYS[4..] every data bucket HASH of
  the slot, in bucket order
  ARGV[1] wake channel, ARGV[2] slot number, ARGV[3] most to move when no ids are given,
  ARGV[4] the caller's slot count (`check_layout`), ARGV[5..] ids (none = the oldest ARGV[3] dead letters)
  Returns how many were moved, or the error of `check_layout`.
]]
local rcall = redis.call
-- @include stored
local now = now_ms()
local ids, refused = chosen_dead_ids(KEYS[2], KEYS[3], ARGV[4], ARGV[3], 5)
if not ids then return refused end
local before = earliest_due(KEYS[1])
local moved = 0
for i = 1, #ids do
  local id = ids[i]
  local deadAt = rcall('ZSCORE', KEYS[2], id)
  if deadAt then
    rcall('ZREM', KEYS[2], id)
    local bucket = bucket_key(id, 4)
    local value = rcall('HGET', bucket, id)
    local meta, rest = nil, nil
    if value then meta, rest = read_stored(value) end
    local scheduledAt, payload = now, value or 'null'
    if meta then
      scheduledAt, payload = tonumber(deadAt) - meta[1], string.sub(rest, meta[3] + 1)
    end
    -- An unreadable value goes back with its raw text as the payload: the engine then sees a
    -- payload that is not JSON and dead-letters it again, naming the problem.
    rcall('ZADD', KEYS[1], now, id)
    rcall('HSET', bucket, id, pack_stored({now - scheduledAt, 0, 0, 0, 0}, payload))
    moved = moved + 1
  end
end
if moved > 0 then wake_if_ahead(before, now, ARGV[1], ARGV[2]) end
return moved
