/**
 * Lua run by Redis for every order write, so each one is atomic. Times come from the Redis server
 * clock (`TIME`), the same clock the durable timeouts use, whatever the clocks of the app servers.
 */

/**
 * Creates an order in PENDING_PAYMENT.
 *
 * KEYS[1] order hash
 * ARGV[1] id, ARGV[2] details (JSON: items, amountCents, customerId),
 * ARGV[3] payment due time in ms ('' to compute it as now + ARGV[4]), ARGV[4] delay in ms
 * Returns {createdAt, paymentDueAt}, or -1 when the order exists.
 */
export const CREATE_ORDER_LUA = `
local rcall = redis.call
if rcall('EXISTS', KEYS[1]) == 1 then return -1 end
local time = rcall('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local dueAt = tonumber(ARGV[3])
if dueAt == nil then dueAt = now + tonumber(ARGV[4]) end
rcall('HSET', KEYS[1], 'id', ARGV[1], 'status', 'PENDING_PAYMENT', 'createdAt', now, 'updatedAt', now,
  'paymentDueAt', dueAt, 'details', ARGV[2])
return {now, dueAt}
`;

/**
 * Moves an order from one status to another only if it is still in the first (compare-and-set),
 * and appends the change to its transitions list in the same step.
 *
 * KEYS[1] order hash, KEYS[2] transitions list
 * ARGV[1] expected status, ARGV[2] new status, ARGV[3] cause ('payment' | 'timeout'),
 * ARGV[4] fencing token or '', ARGV[5] attempt or '', ARGV[6] instance label or '',
 * ARGV[7..] more field/value pairs to set on the order
 * Returns {1, changedAt} when applied, {0, currentStatus} when the order is in another status,
 * -1 when there is no such order.
 */
export const TRANSITION_ORDER_LUA = `
local rcall = redis.call
local status = rcall('HGET', KEYS[1], 'status')
if not status then return -1 end
if status ~= ARGV[1] then return {0, status} end
local time = rcall('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local transition = { from = ARGV[1], to = ARGV[2], at = now, by = ARGV[3] }
if ARGV[4] ~= '' then transition.fencingToken = tonumber(ARGV[4]) end
if ARGV[5] ~= '' then transition.attempt = tonumber(ARGV[5]) end
if ARGV[6] ~= '' then transition.instance = ARGV[6] end
rcall('HSET', KEYS[1], 'status', ARGV[2], 'updatedAt', now)
for i = 7, #ARGV, 2 do rcall('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
rcall('RPUSH', KEYS[2], cjson.encode(transition))
return {1, now}
`;
