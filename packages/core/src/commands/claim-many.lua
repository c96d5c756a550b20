--[[
  Claims several slots of one Redis server in one call, after applying the acks waiting for
  slots of the same server: the calls of several slots that fall in the same turn of the event
  loop travel as one script call instead of one each (store/call-coalescer.ts). Never used on a
  Cluster, where the keys of one call must share a hash slot.

  ARGV[1] number of groups, ARGV[2] most expired leases the claims of this call deal with
  together (each claim's own bound, ARGV[3] of claim.lua, is cut to what is left, so one call
  never does more recovery work than one claim may); then per group: its kind ('a' an ack-many, 'c' a claim), how many keys
  and how many arguments it takes, followed by those arguments. KEYS hold the keys of every group,
  group after group. A group's keys and arguments are laid out as ack-many.lua and claim.lua (the
  `buckets` or the `few` registration) document them, and it runs the same code (the ack-slot and
  claim-slot includes). Groups run in the order given; the store puts acks before claims.
  Returns one reply per group, in order: what ack-many.lua or claim.lua returns for it, or an
  error reply for a group whose code raised an error (the other groups' replies stand).
  A failover refusal (READONLY: this server became a replica; NOREPLICAS: `min-replicas-to-write`
  refuses writes; MASTERDOWN) is the whole call's error instead: the server refuses every write
  then, so no group before it wrote anything, and the store sends the call again as it sends a
  refused single-slot script (store/failover.ts).
]]
local rcall = redis.call
-- Replies that mean the server refuses every write for now (see above).
local FAILOVER_REFUSALS = {'READONLY', 'NOREPLICAS', 'MASTERDOWN'}
-- @include stored
-- @include claim-slot
-- @include ack-slot
local result = {}
local k, a = 0, 2
local recoverLeft = tonumber(ARGV[2])
for g = 1, tonumber(ARGV[1]) do
  local kind, keyCount, argCount = ARGV[a + 1], tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  a = a + 3
  local keys, args = {}, {}
  for i = 1, keyCount do keys[i] = KEYS[k + i] end
  for i = 1, argCount do args[i] = ARGV[a + i] end
  k, a = k + keyCount, a + argCount
  if kind == 'c' then args[3] = tostring(math.min(tonumber(args[3]), recoverLeft)) end
  local ok, reply = pcall(kind == 'c' and claim_slot or ack_slot, keys, args)
  if ok then
    -- A claim's reply counts the expired leases it dealt with (-1 while paused; 0 alone: a `few` miss).
    if kind == 'c' and type(reply) == 'table' and reply[3] > 0 then recoverLeft = recoverLeft - reply[3] end
    result[g] = reply
  else
    local text = (type(reply) == 'table' and reply.err) or tostring(reply)
    for _, refusal in ipairs(FAILOVER_REFUSALS) do
      if string.find(text, refusal, 1, true) then return redis.error_reply(text) end
    end
    result[g] = {err = text}
  end
end
return result
