--[[
  Cancels many pending timeouts of one slot at once (cancelMany): each id as cancel does.

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3] layout marker,
  KEYS[4..] data bucket HASHes of the slot: every bucket in bucket order, or (the `few`
           registration) only the buckets of the ids in the call, padded with repeats
  ARGV[1] the caller's slot count (`check_layout`), then one pair per id:
    id, index in KEYS of its data bucket
  Returns one entry per id, in order: 1 cancelled, 2 firing (claimed now; nothing changed),
  0 not found (dead letters included), or 'DTLOCKED <slots>' / 'DTMOVED <slots>' when
  `check_layout` refuses that id (its data bucket is being moved, or was moved, by a slot
  migration): nothing changed for it, route it again.
]]
local rcall = redis.call
-- @include stored
local marker = rcall('GET', KEYS[3])
local mayLease = rcall('ZCARD', KEYS[2]) > 0
local result = {}
for i = 2, #ARGV, 2 do
  local id = ARGV[i]
  local refused = marker and marker ~= '' and check_layout(KEYS[3], ARGV[1], bucket_index(id, DATA_BUCKETS))
  local outcome = 0
  if refused then
    outcome = refused.err
  elseif rcall('ZREM', KEYS[1], id) == 1 then
    rcall('HDEL', KEYS[tonumber(ARGV[i + 1])], id)
    outcome = 1
  elseif mayLease and rcall('ZSCORE', KEYS[2], id) then
    outcome = 2
  end
  result[#result + 1] = outcome
end
return result
