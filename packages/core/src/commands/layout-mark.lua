--[[
  Sets or clears the layout marker of one slot (see `check_layout` in includes/stored.lua), and
  tells the topic's instances that its layout changed.

  KEYS[1] layout marker
  ARGV[1] the new marker ('' clears it: an empty marker is no marker, and no DEL is needed, so a
  least-privilege user is not granted it), ARGV[2] wake channel
  Returns the marker it replaced, or nil.
]]
local rcall = redis.call
local before = rcall('GET', KEYS[1])
rcall('SET', KEYS[1], ARGV[1])
rcall('PUBLISH', ARGV[2], 'layout')
return before
