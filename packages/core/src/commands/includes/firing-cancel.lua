--[[
  Cancelling a firing timeout, shared by cancel.lua and cancel-many.lua (`-- @include firing-cancel`,
  after `-- @include stored`).

  A firing timeout is cancelled for good: its lease and data are removed, as an ack would remove
  them. The running delivery's ack, failure record, lease renewal and release are then refused as
  stale (its fencing token is gone), and an expired lease has nothing left to retry, so the
  timeout neither runs again nor reaches the dead letters. The instances handling the topic hear
  of it on the wake channel as "cancel:<fencing token>:<id>" (ids may hold colons: the id is
  everything after the second one), and the one running that delivery aborts its signal. Older
  instances read a message whose text before the first colon is not a slot number as nothing.
]]

-- Removes the leased `id` (data in `bucket`) and tells the topic's instances; a value whose token
-- cannot be read is removed all the same, without a notice (no delivery could match it).
local function cancel_firing(leaseKey, bucket, id, channel)
  local value = rcall('HGET', bucket, id)
  rcall('ZREM', leaseKey, id)
  rcall('HDEL', bucket, id)
  local token = value and stored_token(value) or 0
  if token > 0 then rcall('PUBLISH', channel, 'cancel:' .. int(token) .. ':' .. id) end
end
