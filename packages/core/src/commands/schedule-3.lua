--[[
  Schedules (upserts) timeouts of one slot; for each id the last call wins for due time and
  payload. The store coalesces the schedule calls made in one tick for a slot into one call.

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3] dead ZSET,
  KEYS[4..] data bucket HASHes of the slot: every bucket in bucket order, or (the `few`
           registration) only the buckets of the ids in the call, padded with repeats
  ARGV[1] wake channel, ARGV[2] slot number, then one group of five per timeout:
    id, index in KEYS of its data bucket,
    timing ('d' = the next value is a delay from the server clock, 'a' = an absolute time),
    delay or time (ms), payload JSON text
  Returns {outcome, dueAt, outcome, dueAt, ...} in order: outcome 0 created, 1 replaced (was
  pending), 2 replaced_firing (was leased). A dead letter with the same id is replaced (0).
  Attempts and last error start afresh. Publishes "<slot>:<dueAt>" on the wake channel when the
  slot's earliest due time moved earlier (or the slot was empty).

  One command per timeout on the common path (new id) besides ZADD + HSET: this script is the
  throughput ceiling of the library.
]]
local rcall = redis.call
local t = rcall('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local first = rcall('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local before = first[2] and tonumber(first[2])
local earliest = nil
local result = {}
for i = 3, #ARGV, 5 do
  local id = ARGV[i]
  local bucket = KEYS[tonumber(ARGV[i + 1])]
  local dueAt
  if ARGV[i + 2] == 'd' then dueAt = now + ARGV[i + 3] else dueAt = tonumber(ARGV[i + 3]) end
  local outcome = 0
  local addedToDue = rcall('ZADD', KEYS[1], dueAt, id)
  local newData = rcall('HSET', bucket, id, string.format('%d', dueAt - now) .. '|' .. ARGV[i + 4])
  if addedToDue == 0 then
    outcome = 1
  elseif newData == 0 then
    -- The id had data but was not pending: it is firing or dead.
    if rcall('ZREM', KEYS[2], id) == 1 then
      outcome = 2
    else
      rcall('ZREM', KEYS[3], id)
    end
  end
  if earliest == nil or dueAt < earliest then earliest = dueAt end
  result[#result + 1] = outcome
  result[#result + 1] = dueAt
end
if earliest ~= nil and (before == nil or earliest < before) then
  rcall('PUBLISH', ARGV[1], ARGV[2] .. ':' .. string.format('%d', earliest))
end
return result
