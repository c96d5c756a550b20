--[[
  Marks one slot of a topic paused, or reads its mark. A claim of a paused slot changes nothing
  (claim.lua); schedules and cancels go on.

  KEYS[1] pause marker HASH: field `at`, the Redis time the slot was paused (ms); no key when not paused
  ARGV[1] 'pause' (keeps an earlier mark) or 'read', ARGV[2] with 'pause', optional: the time the
  pause started (ms; a slot migration dates the pause of a slot it adds back to the topic's), at most now
  Returns {now, the time the slot was paused, or nil when it is not paused}
]]
local rcall = redis.call
-- @include stored
local now = now_ms()
if ARGV[1] == 'pause' then
  local since = tonumber(ARGV[2])
  if since == nil or since > now then since = now end
  rcall('HSETNX', KEYS[1], 'at', int(since))
end
local since = rcall('HGET', KEYS[1], 'at')
if since then return {now, tonumber(since)} end
return {now}
