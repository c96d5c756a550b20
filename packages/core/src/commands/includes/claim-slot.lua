--[[
  The claim of one slot, shared by claim.lua (one slot per call) and claim-many.lua (several slots
  of one Redis server per call): `-- @include claim-slot`, after `-- @include stored`.
  `claim_slot(KEYS, ARGV)` takes the keys and arguments of one slot's claim laid out as claim.lua
  documents them, and returns what claim.lua returns. Its parameters shadow the script's globals,
  so the body reads the same in both scripts.
]]
local function claim_slot(KEYS, ARGV)
  local now = now_ms()
  if rcall('HGET', KEYS[6], 'at') then return {now, false, -1, false, {}, {}} end
  local busy = moving_bucket(KEYS[5])
  local limit = tonumber(ARGV[1])
  local leaseUntil = now + tonumber(ARGV[2])
  local bucketCount = tonumber(ARGV[4])
  local maxAttempts = tonumber(ARGV[6])
  local lateAfter = tonumber(ARGV[10])
  local lateAction = tonumber(ARGV[11])
  local ratePerMs = tonumber(ARGV[12])
  local tokens = nil
  if ratePerMs > 0 then
    local burst = tonumber(ARGV[13])
    local ts = tonumber(rcall('HGET', KEYS[6], 'ts'))
    tokens = tonumber(rcall('HGET', KEYS[6], 'tokens'))
    if tokens and ts then tokens = math.min(burst, tokens + math.max(0, now - ts) * ratePerMs) else tokens = burst end
    limit = math.min(limit, math.floor(tokens))
  end
  local chosen = nil
  if #ARGV > 13 then
    chosen = {}
    for i = 14, #ARGV do chosen[tonumber(ARGV[i])] = KEYS[i - 7] end
  end

  local function data_key(id)
    local bucket = bucket_index(id, bucketCount)
    if chosen then return chosen[bucket] end
    return KEYS[7 + bucket]
  end

  local givenUp = {}
  local function report(id, code, attempts, at, err, dueAt)
    local n = #givenUp
    givenUp[n + 1] = id
    givenUp[n + 2] = code
    givenUp[n + 3] = attempts
    givenUp[n + 4] = at
    givenUp[n + 5] = err
    givenUp[n + 6] = dueAt or 0
  end

  -- Dead-letters an id whose value is unreadable (its raw text is kept as the payload) or missing.
  local function bury_unreadable(bucket, id, value, why)
    if value then
      local err = CORRUPT .. why
      bury(KEYS[4], bucket, id, now, now, 0, err, value)
      report(id, 3, 0, now, err)
    else
      bury(KEYS[4], bucket, id, now, now, 0, MISSING, 'null')
      report(id, 4, 0, now, MISSING)
    end
  end

  local expired = {}
  if chosen then
    if rcall('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 1)[1] then return 0 end
  else
    expired = rcall('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
    if busy then
      local kept = {}
      for i = 1, #expired do
        if bucket_index(expired[i], bucketCount) ~= busy then kept[#kept + 1] = expired[i] end
      end
      expired = kept
    end
    local fraction = tonumber(ARGV[9])
    for i = 1, #expired do
      local id = expired[i]
      local bucket = data_key(id)
      local value = rcall('HGET', bucket, id)
      rcall('ZREM', KEYS[2], id)
      local meta, rest = nil, 'no value'
      if value then meta, rest = read_stored(value) end
      if meta and meta[4] == 0 then meta, rest = nil, 'leased without a fencing token' end
      if not meta then
        bury_unreadable(bucket, id, value, rest)
      else
        local attempts = meta[2]
        local scheduledAt = meta[5] - meta[1]
        local payload = string.sub(rest, meta[3] + 1)
        if attempts >= maxAttempts then
          bury(KEYS[4], bucket, id, now, scheduledAt, attempts, LEASE_EXPIRED, payload)
          report(id, 2, attempts, now, LEASE_EXPIRED)
        else
          -- Ids of one call spread over the jitter window instead of sharing one pick.
          local spread = (fraction + bucket_index(id, 1000003) / 1000003) % 1
          local retryAt = now + retry_delay(attempts, tonumber(ARGV[7]), tonumber(ARGV[8]), spread)
          rcall('ZADD', KEYS[1], retryAt, id)
          rcall('HSET', bucket, id, pack_stored({retryAt - scheduledAt, attempts, #LEASE_EXPIRED, 0, 0}, LEASE_EXPIRED .. payload))
          report(id, 1, attempts, retryAt, LEASE_EXPIRED)
        end
      end
    end
  end

  local due = rcall('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, limit)
  if busy then
    local kept = {}
    for i = 1, #due, 2 do
      if bucket_index(due[i], bucketCount) ~= busy then
        kept[#kept + 1] = due[i]
        kept[#kept + 1] = due[i + 1]
      end
    end
    due = kept
  end
  local count = #due / 2
  if chosen then
    for i = 1, count do
      if not data_key(due[2 * i - 1]) then return 0 end
    end
  end

  local result = {now, false, #expired, false, {}, givenUp}
  if count > 0 then
    local token = take_tokens(KEYS[3], now, count)
    local taken = {}
    local leased = {}
    for i = 1, count do
      local id = due[2 * i - 1]
      local dueAt = tonumber(due[2 * i])
      local bucket = data_key(id)
      local value = rcall('HGET', bucket, id)
      taken[i] = id
      local meta, rest = nil, 'no value'
      if value then meta, rest = read_stored(value) end
      if not meta then
        bury_unreadable(bucket, id, value, rest)
      elseif lateAfter >= 0 and now - dueAt > lateAfter then
        local scheduledAt = dueAt - meta[1]
        if lateAction == 1 then
          bury(KEYS[4], bucket, id, now, scheduledAt, meta[2], LATE, string.sub(rest, meta[3] + 1))
          report(id, 5, meta[2], now, LATE, dueAt)
        else
          rcall('HDEL', bucket, id)
          report(id, 6, meta[2], now, '', dueAt)
        end
      else
        token = token + 1
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
  if tokens then
    tokens = tokens - (#result - 6) / 6
    rcall('HSET', KEYS[6], 'tokens', string.format('%.6f', tokens), 'ts', int(now))
  end

  local ahead = tonumber(ARGV[5])
  local upcoming = rcall('ZRANGE', KEYS[1], 0, math.max(ahead, 1) - 1, 'WITHSCORES')
  if upcoming[2] then
    result[2] = tonumber(upcoming[2])
    -- Waiting for a token: the next claim that can take anything is when one has come.
    if tokens and tokens < 1 then result[2] = math.max(result[2], now + math.ceil((1 - tokens) / ratePerMs)) end
  end
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
end
