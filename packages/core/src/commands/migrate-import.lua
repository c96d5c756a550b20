--[[
  Writes entries a slot migration moves into their new slot, unless the id is already there.

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3] dead ZSET, KEYS[4] fencing token counter,
  KEYS[5..] every data bucket HASH of the slot, in bucket order
  ARGV[1] wake channel, ARGV[2] slot number, ARGV[3] the counter of the slot they come from, then
  groups of four as migrate-export returns them: id, state, score, stored value
  Returns one 1 (written) or 0 (the id was there already: what is there is newer) per group. The
  counter is raised to at least ARGV[3], so tokens handed here stay above those handed there. Wakes
  the slot's pollers when a pending or firing entry was written.
]]
local rcall = redis.call
-- @include stored
local counter = tonumber(rcall('GET', KEYS[4])) or 0
if tonumber(ARGV[3]) and tonumber(ARGV[3]) > counter then rcall('SET', KEYS[4], ARGV[3]) end
local earliest = nil
local result = {}
for i = 4, #ARGV, 4 do
  local id, state, score = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  local present = rcall('ZSCORE', KEYS[1], id) or rcall('ZSCORE', KEYS[2], id) or rcall('ZSCORE', KEYS[3], id)
  if present then
    result[#result + 1] = 0
  else
    rcall('ZADD', KEYS[state], score, id)
    rcall('HSET', bucket_key(id, 5), id, ARGV[i + 3])
    if state ~= 3 and (earliest == nil or score < earliest) then earliest = score end
    result[#result + 1] = 1
  end
end
-- Pollers of the slot claim at once and learn its new earliest due time and lease expiry.
if earliest ~= nil then rcall('PUBLISH', ARGV[1], ARGV[2] .. ':' .. int(earliest)) end
return result
