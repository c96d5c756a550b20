--[[
  Schedules (upserts) timeouts of one slot; for each id the last call wins for due time and
  payload. The store coalesces the schedule calls made in one tick for a slot into one call.

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3] dead ZSET, KEYS[4] layout marker,
  KEYS[5..] data bucket HASHes of the slot: every bucket in bucket order, or (the `few`
           registration) only the buckets of the ids in the call, padded with repeats
  ARGV[1] wake channel, ARGV[2] slot number, ARGV[3] the caller's slot count (`check_layout`),
  then one group of five per timeout:
    id, index in KEYS of its data bucket,
    timing ('d' = the next value is a delay from the server clock, 'a' = an absolute time),
      followed by the mode when the id may exist (`ifExists`): nothing = replace, 'k' = keep,
      'e' = earlier, 'l' = later,
    delay or time (ms), payload JSON text
  Returns {outcome, dueAt, outcome, dueAt, ...} in order, where an entry `check_layout` refuses
  (its data bucket is being moved, or was moved, by a slot migration) has outcome 'DTLOCKED <slots>'
  or 'DTMOVED <slots>' and changes nothing: outcome 0 created, 1 replaced (was
  pending), 2 replaced_firing (was leased), 3 kept (pending, unchanged), 4 kept_firing (leased,
  unchanged); the dueAt of a kept entry is the due time it keeps (of the claimed run when leased).
  Modes compare with the id's due time now: 'k' keeps a pending or leased id, 'e' keeps it unless
  the new due time is earlier, 'l' unless it is later. A dead letter with the same id is replaced
  (0) in every mode, and so is a leased id whose stored value cannot be read.
  Attempts and last error start afresh. Publishes "<slot>:<dueAt>" on the wake channel when the
  slot's earliest due time moved earlier (or the slot was empty).

  On the common path (a slot with nothing firing or dead) a timeout costs ZADD + HSET and nothing
  else: this script is the throughput ceiling of the library.
]]
local rcall = redis.call
-- @include stored

-- Whether a call in mode `mode` leaves the id as it is: returns 3 (pending) or 4 (leased) and the
-- due time it keeps, or nil when the call replaces it (absent, dead, unreadable, or the mode says so).
local function keep_existing(mode, id, bucket, dueAt, mayLease)
  local code, current = 3, tonumber(rcall('ZSCORE', KEYS[1], id))
  if not current then
    if not mayLease or not rcall('ZSCORE', KEYS[2], id) then return nil end
    local value = rcall('HGET', bucket, id)
    local meta = value and read_stored(value)
    if not meta or meta[4] == 0 then return nil end
    code, current = 4, meta[5]
  end
  if mode == 'k' or (mode == 'e' and dueAt >= current) or (mode == 'l' and dueAt <= current) then return code, current end
  return nil
end
local marker = rcall('GET', KEYS[4])
local now = now_ms()
local before = earliest_due(KEYS[1])
local earliest = nil
local result = {}
-- Whether the id may also be leased or dead: checked once per call, so that the common case (a
-- slot with nothing firing or dead) costs no lookup per id.
local mayLease = rcall('ZCARD', KEYS[2]) > 0
local mayDead = rcall('ZCARD', KEYS[3]) > 0
for i = 4, #ARGV, 5 do
  local id = ARGV[i]
  local bucket = KEYS[tonumber(ARGV[i + 1])]
  local timing = ARGV[i + 2]
  local dueAt
  if string.byte(timing, 1) == 100 then dueAt = now + ARGV[i + 3] else dueAt = tonumber(ARGV[i + 3]) end
  local refused = marker and marker ~= '' and check_layout(KEYS[4], ARGV[3], bucket_index(id, DATA_BUCKETS))
  local outcome = 0
  if refused then
    outcome = refused.err
  elseif #timing > 1 then
    local kept, keptDue = keep_existing(string.sub(timing, 2, 2), id, bucket, dueAt, mayLease)
    if kept then outcome, dueAt = kept, keptDue end
  end
  if not refused and outcome == 0 and rcall('ZADD', KEYS[1], dueAt, id) == 0 then outcome = 1 end
  if not refused and outcome < 3 then
    rcall('HSET', bucket, id, string.format('%d', dueAt - now) .. '|' .. ARGV[i + 4])
    -- Lease and dead state are always cleared, even when the id's data was lost (an id left in both
    -- due and lease would be recovered later with no due time to go back to).
    if mayLease and rcall('ZREM', KEYS[2], id) == 1 and outcome == 0 then outcome = 2 end
    if mayDead then rcall('ZREM', KEYS[3], id) end
    if earliest == nil or dueAt < earliest then earliest = dueAt end
  end
  result[#result + 1] = outcome
  result[#result + 1] = dueAt
end
if earliest ~= nil then wake_if_ahead(before, earliest, ARGV[1], ARGV[2]) end
return result
