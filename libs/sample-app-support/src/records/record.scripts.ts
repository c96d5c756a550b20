/**
 * Lua run by Redis for every record write, so each one is atomic. Times come from the Redis server
 * clock (`TIME`), the same clock the durable timeouts use, whatever the clocks of the app servers.
 */

/**
 * Creates a record in its first status, with the due time of its first deadline.
 *
 * KEYS[1] record hash
 * ARGV[1] id, ARGV[2] status, ARGV[3] name of the due-time field,
 * ARGV[4] due time in ms ('' to compute it as now + ARGV[5]), ARGV[5] delay in ms,
 * ARGV[6..] more field/value pairs (e.g. `details` as JSON)
 * Returns {createdAt, dueAt}, or -1 when the record exists.
 */
export const CREATE_RECORD_LUA = `
local rcall = redis.call
if rcall('EXISTS', KEYS[1]) == 1 then return -1 end
local time = rcall('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local dueAt = tonumber(ARGV[4])
if dueAt == nil then dueAt = now + tonumber(ARGV[5]) end
rcall('HSET', KEYS[1], 'id', ARGV[1], 'status', ARGV[2], 'createdAt', now, 'updatedAt', now, ARGV[3], dueAt)
for i = 6, #ARGV, 2 do rcall('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return {now, dueAt}
`;

/**
 * Compare-and-set of a record's status: applies a change only if every guard of it holds, and
 * appends the change to the record's transitions list in the same step.
 *
 * KEYS[1] record hash, KEYS[2] transitions list,
 * KEYS[3] hash of claimed resources (member -> record id), only when the change claims or releases one
 * ARGV[1] the change as JSON:
 *   from      statuses the record may be in (required)
 *   to, by    new status, cause (required)
 *   expect    { field = value }: fields that must hold exactly these values
 *   deadline  { field, dueAt }: the due-time field must be <= dueAt (the deadline did not move later)
 *   claim     member of KEYS[3] the record takes; refused when another record holds it
 *   release   member of KEYS[3] the record gives back (only if it holds it)
 *   set       { field = value } to write, unset [ field ] to delete, with the change
 *   line      { key = value } more data for the transition line (e.g. driverId)
 *   fencingToken, attempt, instance   written into the transition line when present
 * Returns {1, changedAt} when applied; -1 when there is no such record; {0, status} when the
 * status is not in `from` (or the deadline field is missing); {3, field} when `expect` fails;
 * {4, dueAt} when the deadline moved later; {2, holder} when the claimed member is taken.
 */
export const TRANSITION_RECORD_LUA = `
local rcall = redis.call
local change = cjson.decode(ARGV[1])
local status = rcall('HGET', KEYS[1], 'status')
if not status then return -1 end
local allowed = false
for _, from in ipairs(change.from) do
  if from == status then allowed = true end
end
if not allowed then return {0, status} end
if change.expect then
  for field, value in pairs(change.expect) do
    if rcall('HGET', KEYS[1], field) ~= value then return {3, field} end
  end
end
if change.deadline then
  local dueAt = tonumber(rcall('HGET', KEYS[1], change.deadline.field))
  if dueAt == nil then return {0, status} end
  if dueAt > change.deadline.dueAt then return {4, dueAt} end
end
local id = rcall('HGET', KEYS[1], 'id')
if change.claim then
  local holder = rcall('HGET', KEYS[3], change.claim)
  if holder and holder ~= id then return {2, holder} end
end
local time = rcall('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local line = { from = status, to = change.to, at = now, by = change.by,
  fencingToken = change.fencingToken, attempt = change.attempt, instance = change.instance }
if change.line then
  for key, value in pairs(change.line) do line[key] = value end
end
rcall('HSET', KEYS[1], 'status', change.to, 'updatedAt', now)
if change.set then
  for field, value in pairs(change.set) do rcall('HSET', KEYS[1], field, value) end
end
if change.unset then
  for _, field in ipairs(change.unset) do rcall('HDEL', KEYS[1], field) end
end
if change.claim then rcall('HSET', KEYS[3], change.claim, id) end
if change.release and rcall('HGET', KEYS[3], change.release) == id then rcall('HDEL', KEYS[3], change.release) end
rcall('RPUSH', KEYS[2], cjson.encode(line))
return {1, now}
`;
