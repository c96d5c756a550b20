--[[
  Cancels many timeouts of one slot at once (cancelMany): each id as cancel does.

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3] layout marker,
  KEYS[4..] data bucket HASHes of the slot: every bucket in bucket order, or (the `few`
           registration) only the buckets of the ids in the call, padded with repeats
  ARGV[1] the caller's slot count (`check_layout`), ARGV[2] wake channel, then one pair per id:
    id, index in KEYS of its data bucket
  Returns one entry per id, in order: 1 cancelled (was pending), 2 firing (was claimed: removed,
  its delivery told, see `cancel_firing`), 0 not found (dead letters included), or
  'DTLOCKED <slots>' / 'DTMOVED <slots>' when `check_layout` refuses that id (its data bucket is
  being moved, or was moved, by a slot migration): nothing changed for it, route it again.
]]
local rcall = redis.call
-- @include stored
-- @include firing-cancel
local marker = rcall('GET', KEYS[3])
local mayLease = rcall('ZCARD', KEYS[2]) > 0
local result = {}
for i = 3, #ARGV, 2 do
  local id = ARGV[i]
  local refused = marker and marker ~= '' and check_layout(KEYS[3], ARGV[1], bucket_index(id, DATA_BUCKETS))
  local outcome = 0
  if refused then
    outcome = refused.err
  elseif rcall('ZREM', KEYS[1], id) == 1 then
    rcall('HDEL', KEYS[tonumber(ARGV[i + 1])], id)
    outcome = 1
  elseif mayLease and rcall('ZSCORE', KEYS[2], id) then
    cancel_firing(KEYS[2], KEYS[tonumber(ARGV[i + 1])], id, ARGV[2])
    outcome = 2
  end
  result[#result + 1] = outcome
end
return result
