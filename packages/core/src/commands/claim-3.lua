--[[
  Claims due timeouts of one slot, after returning expired leases to due.

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3] fencing token counter
  KEYS[4..] data bucket HASHes of the slot: every bucket in bucket order, or (the `few`
           registration) the buckets the caller expects the claim to need, padded with repeats
  ARGV[1] most ids to claim (the store caps it at 1,000), ARGV[2] lease ms, ARGV[3] most expired
  leases to recover in this call, ARGV[4] number of data buckets of a slot, ARGV[5] how many of
  the next due ids to report the buckets of, ARGV[6..] (`few` only) the bucket number of KEYS[4],
  KEYS[5], ...
  Returns {now, nextDueAt or nil, recovered, nextLeaseExpiresAt or nil, next buckets, then for
           each claimed id: id, dueAt, scheduledAt, attempt, fencingToken, payload}
  or 0, changing nothing, when a `few` call lacks a bucket it needs (or an expired lease waits):
  the caller then claims with every bucket.
  nextLeaseExpiresAt is the earliest lease expiry left in the slot (this call's leases included),
  so a poller can wake when a dead worker's lease ends instead of at its next sweep. Next buckets
  are the distinct bucket numbers of the first ARGV[5] ids left in due: the keys the next `few`
  claim should pass.
  Recovered leases go back to due at their original due time with their attempt count kept.
  Each claimed id gets attempt + 1 and a fencing token drawn from the slot's counter, so the
  tokens of one id only grow.
]]
local rcall = redis.call
-- @include stored
local now = now_ms()
local limit = tonumber(ARGV[1])
local leaseUntil = now + tonumber(ARGV[2])
local bucketCount = tonumber(ARGV[4])
local chosen = nil
if #ARGV > 5 then
  chosen = {}
  for i = 6, #ARGV do chosen[tonumber(ARGV[i])] = KEYS[i - 2] end
end

local function data_key(id)
  local bucket = bucket_index(id, bucketCount)
  if chosen then return chosen[bucket] end
  return KEYS[4 + bucket]
end

local expired = {}
if chosen then
  if rcall('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 1)[1] then return 0 end
else
  expired = rcall('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
  for i = 1, #expired do
    local id = expired[i]
    local bucket = data_key(id)
    local value = rcall('HGET', bucket, id)
    rcall('ZREM', KEYS[2], id)
    if value then
      local meta, rest = unpack_stored(value)
      local dueAt = meta[5]
      meta[4], meta[5] = 0, 0
      rcall('ZADD', KEYS[1], dueAt, id)
      rcall('HSET', bucket, id, pack_stored(meta, rest))
    end
  end
end

local due = rcall('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, limit)
local count = #due / 2
if chosen then
  for i = 1, count do
    if not data_key(due[2 * i - 1]) then return 0 end
  end
end

local result = {now, false, #expired, false, {}}
if count > 0 then
  local token = rcall('INCRBY', KEYS[3], count) - count
  local taken = {}
  local leased = {}
  for i = 1, count do
    local id = due[2 * i - 1]
    local dueAt = tonumber(due[2 * i])
    local bucket = data_key(id)
    local value = rcall('HGET', bucket, id)
    taken[i] = id
    if value then
      token = token + 1
      local meta, rest = unpack_stored(value)
      meta[2], meta[4], meta[5] = meta[2] + 1, token, dueAt
      rcall('HSET', bucket, id, pack_stored(meta, rest))
      leased[#leased + 1] = leaseUntil
      leased[#leased + 1] = id
      local n = #result
      result[n + 1] = id
      result[n + 2] = dueAt
      result[n + 3] = dueAt - meta[1]
      result[n + 4] = meta[2]
      result[n + 5] = token
      result[n + 6] = string.sub(rest, meta[3] + 1)
    end
  end
  -- One ZREM and one ZADD for the whole batch (limit is kept small enough for unpack).
  rcall('ZREM', KEYS[1], unpack(taken))
  if #leased > 0 then rcall('ZADD', KEYS[2], unpack(leased)) end
end

local ahead = tonumber(ARGV[5])
local upcoming = rcall('ZRANGE', KEYS[1], 0, math.max(ahead, 1) - 1, 'WITHSCORES')
if upcoming[2] then result[2] = tonumber(upcoming[2]) end
local seen = {}
for i = 1, math.min(ahead, #upcoming / 2) do
  local bucket = bucket_index(upcoming[2 * i - 1], bucketCount)
  if not seen[bucket] then
    seen[bucket] = true
    result[5][#result[5] + 1] = bucket
  end
end
local firstLease = rcall('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
if firstLease[2] then result[4] = tonumber(firstLease[2]) end
return result
