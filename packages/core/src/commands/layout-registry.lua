--[[
  Reads and changes the slot count recorded for a topic (see docs/REDIS-LAYOUT.md, "Changing a
  topic's slot count"). A value is '<slots>', or '<from>><to>' while a migration moves the topic.

  KEYS[1] the topics HASH (topic -> value)
  ARGV[1] operation, ARGV[2] topic, ARGV[3], ARGV[4] its operands:
    'read'                   returns the value, or nil
    'claim', slots           records slots when the topic has no value yet; returns the value
    'begin', from, to        from -> from>to (also when already from>to); returns the value after
    'finish', from, to       from>to -> to (also when already to); returns the value after
]]
local rcall = redis.call
local op, topic = ARGV[1], ARGV[2]
if op == 'claim' then rcall('HSETNX', KEYS[1], topic, ARGV[3]) end
local value = rcall('HGET', KEYS[1], topic)
if op == 'begin' and (value == ARGV[3] or value == false) then
  value = ARGV[3] .. '>' .. ARGV[4]
  rcall('HSET', KEYS[1], topic, value)
elseif op == 'finish' and value == ARGV[3] .. '>' .. ARGV[4] then
  value = ARGV[4]
  rcall('HSET', KEYS[1], topic, value)
end
return value
