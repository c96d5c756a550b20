--[[
  Reads what a slot migration moves: the entries of some ids, exactly as stored.

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3] dead ZSET, KEYS[4] fencing token counter,
  KEYS[5..] every data bucket HASH of the slot, in bucket order
  ARGV ids
  Returns {the slot's counter, then for each id found: id, state (1 pending, 2 firing, 3 dead),
  score in that set, stored value}. Ids in no set are left out.
]]
local rcall = redis.call
-- @include stored
local result = {rcall('GET', KEYS[4]) or '0'}
for i = 1, #ARGV do
  local id = ARGV[i]
  for state = 1, 3 do
    local score = rcall('ZSCORE', KEYS[state], id)
    if score then
      local n = #result
      result[n + 1] = id
      result[n + 2] = state
      result[n + 3] = score
      result[n + 4] = rcall('HGET', bucket_key(id, 5), id) or ''
      break
    end
  end
end
return result
