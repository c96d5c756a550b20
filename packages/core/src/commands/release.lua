--[[
  Hands claimed timeouts back as due now without spending an attempt (shutdown), for the entries
  whose fencing token is still current.

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3] forwarded deliveries HASH,
  KEYS[4..] every data bucket HASH of the slot, in bucket order
  ARGV[1] wake channel, ARGV[2] slot number, then pairs: id, fencing token, ...
  Returns {how many were released, then for each delivery a slot migration moved: id, the slot it
  moved to (release it there)}. An unreadable value is left leased: the claim that meets its expired lease
  dead-letters it.
]]
local rcall = redis.call
-- @include stored
local now = now_ms()
local before = earliest_due(KEYS[1])
local released = 0
local moved = {}
for i = 3, #ARGV, 2 do
  local id = ARGV[i]
  local token = tonumber(ARGV[i + 1])
  local leased = token and token > 0 and rcall('ZSCORE', KEYS[2], id)
  local target = token and token > 0 and not leased and forwarded(KEYS[3], id, token)
  if target then
    moved[#moved + 1] = id
    moved[#moved + 1] = tonumber(target)
  elseif leased then
    local bucket = bucket_key(id, 4)
    local value = rcall('HGET', bucket, id)
    local meta, rest = nil, nil
    if value then meta, rest = read_stored(value) end
    if meta and meta[4] == token then
      local scheduledAt = meta[5] - meta[1]
      meta[1], meta[2], meta[4], meta[5] = now - scheduledAt, math.max(meta[2] - 1, 0), 0, 0
      rcall('ZREM', KEYS[2], id)
      rcall('ZADD', KEYS[1], now, id)
      rcall('HSET', bucket, id, pack_stored(meta, rest))
      released = released + 1
    end
  end
end
if released > 0 then wake_if_ahead(before, now, ARGV[1], ARGV[2]) end
return {released, unpack(moved)}
