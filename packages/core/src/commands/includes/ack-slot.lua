--[[
  The ack-many of one slot, shared by ack-many.lua and claim-many.lua: `-- @include ack-slot`,
  after `-- @include stored`. `ack_slot(KEYS, ARGV)` takes one slot's keys and arguments laid out
  as ack-many.lua documents them, and returns what ack-many.lua returns.
]]
local function ack_slot(KEYS, ARGV)
  local result = {}
  local acked = {}
  for i = 1, #ARGV, 3 do
    local id = ARGV[i]
    local done = 0
    -- The stored token is set only while the id is leased (recovery, rescheduling and dead-lettering
    -- reset it to 0, tokens start above 0), so a matching token alone proves the lease is this one.
    local bucket = KEYS[tonumber(ARGV[i + 2])]
    local value = rcall('HGET', bucket, id)
    local token = tonumber(ARGV[i + 1])
    if value and token and token > 0 and stored_token(value) == token then
      rcall('HDEL', bucket, id)
      acked[#acked + 1] = id
      done = 1
    elseif token and token > 0 then
      local moved = forwarded(KEYS[2], id, token)
      if moved then done = 'fwd:' .. moved end
    end
    result[#result + 1] = done
  end
  if #acked > 0 then rcall('ZREM', KEYS[1], unpack(acked)) end
  return result
end
