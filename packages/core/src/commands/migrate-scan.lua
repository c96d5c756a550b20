--[[
  The ids held by one data bucket of a slot, for a slot migration to find the ids it moves.

  KEYS[1] a data bucket HASH
  Returns its fields (ids).
]]
return redis.call('HKEYS', KEYS[1])
