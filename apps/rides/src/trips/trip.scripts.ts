/**
 * Lua run by Redis for every trip write, so each one is atomic. Times come from the Redis server
 * clock (`TIME`), the same clock the durable timeouts use, whatever the clocks of the app servers.
 */

/**
 * Creates a trip in WAITING.
 *
 * KEYS[1] trip hash
 * ARGV[1] id, ARGV[2] details (JSON: riderId, pickup, dropoff),
 * ARGV[3] match due time in ms ('' to compute it as now + ARGV[4]), ARGV[4] delay in ms
 * Returns {createdAt, matchDueAt}, or -1 when the trip exists.
 */
export const CREATE_TRIP_LUA = `
local rcall = redis.call
if rcall('EXISTS', KEYS[1]) == 1 then return -1 end
local time = rcall('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local dueAt = tonumber(ARGV[3])
if dueAt == nil then dueAt = now + tonumber(ARGV[4]) end
rcall('HSET', KEYS[1], 'id', ARGV[1], 'status', 'WAITING', 'createdAt', now, 'updatedAt', now,
  'matchDueAt', dueAt, 'details', ARGV[2])
return {now, dueAt}
`;

/**
 * A driver accepts a trip: WAITING -> ASSIGNED and driver -> trip recorded, both or neither. A trip
 * no longer waiting, or a driver already assigned elsewhere, changes nothing: the driver stays free.
 *
 * KEYS[1] trip hash, KEYS[2] transitions list, KEYS[3] driver assignments hash
 * ARGV[1] driver id, ARGV[2] instance label or ''
 * Returns {1, changedAt} when assigned, {0, currentStatus} when the trip is not WAITING,
 * {2, assignedTripId} when the driver is busy, -1 when there is no such trip.
 */
export const ACCEPT_TRIP_LUA = `
local rcall = redis.call
local status = rcall('HGET', KEYS[1], 'status')
if not status then return -1 end
if status ~= 'WAITING' then return {0, status} end
local busyWith = rcall('HGET', KEYS[3], ARGV[1])
if busyWith then return {2, busyWith} end
local time = rcall('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local transition = { from = 'WAITING', to = 'ASSIGNED', at = now, by = 'accept', driverId = ARGV[1] }
if ARGV[2] ~= '' then transition.instance = ARGV[2] end
rcall('HSET', KEYS[1], 'status', 'ASSIGNED', 'updatedAt', now, 'driverId', ARGV[1])
rcall('HSET', KEYS[3], ARGV[1], rcall('HGET', KEYS[1], 'id'))
rcall('RPUSH', KEYS[2], cjson.encode(transition))
return {1, now}
`;

/**
 * The driver-match timeout: WAITING -> DRIVER_NOT_FOUND only if the trip is still WAITING.
 *
 * KEYS[1] trip hash, KEYS[2] transitions list
 * ARGV[1] fencing token or '', ARGV[2] attempt or '', ARGV[3] instance label or ''
 * Returns {1, changedAt} when applied, {0, currentStatus} when the trip is in another status,
 * -1 when there is no such trip.
 */
export const EXPIRE_TRIP_LUA = `
local rcall = redis.call
local status = rcall('HGET', KEYS[1], 'status')
if not status then return -1 end
if status ~= 'WAITING' then return {0, status} end
local time = rcall('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local transition = { from = 'WAITING', to = 'DRIVER_NOT_FOUND', at = now, by = 'timeout' }
if ARGV[1] ~= '' then transition.fencingToken = tonumber(ARGV[1]) end
if ARGV[2] ~= '' then transition.attempt = tonumber(ARGV[2]) end
if ARGV[3] ~= '' then transition.instance = ARGV[3] end
rcall('HSET', KEYS[1], 'status', 'DRIVER_NOT_FOUND', 'updatedAt', now)
rcall('RPUSH', KEYS[2], cjson.encode(transition))
return {1, now}
`;
