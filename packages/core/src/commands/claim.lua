--[[
  Claims due timeouts of one slot, after dealing with the leases that expired.

  KEYS[1] due ZSET, KEYS[2] lease ZSET, KEYS[3] fencing token counter, KEYS[4] dead ZSET,
  KEYS[5] layout marker, KEYS[6] flow HASH of the slot: field `at` while the topic is paused,
  `tokens` and `ts` for the rate limit's token bucket
  KEYS[7..] data bucket HASHes of the slot: every bucket in bucket order, or (the `few`
           registration) the buckets the caller expects the claim to need, padded with repeats
  ARGV[1] most ids to claim (the store caps it at 1,000), ARGV[2] lease ms, ARGV[3] most expired
  leases to deal with in this call, ARGV[4] number of data buckets of a slot, ARGV[5] how many of
  the next due ids to report the buckets of, ARGV[6] max attempts, ARGV[7] retry backoff base ms,
  ARGV[8] retry backoff cap ms, ARGV[9] a random fraction in [0, 1) for the backoff jitter,
  ARGV[10] late policy: ms past its due time after which a due id is late (-1: no policy),
  ARGV[11] what happens to a late id: 1 dead-lettered (error LATE), 2 dropped (skipped),
  ARGV[12] rate limit: tokens per ms of the slot's token bucket (0: no limit), ARGV[13] its burst
  (most tokens it holds),
  ARGV[14..] (`few` only) the bucket number of KEYS[7], KEYS[8], ...
  Returns {now, nextDueAt or nil, expired, nextLeaseExpiresAt or nil, next buckets, given up,
           then for each claimed id: id, dueAt, scheduledAt, attempt, fencingToken, payload}
  or {now, nil, -1, nil, {}, {}} while the slot is paused (its pause marker is set): nothing is
  claimed, no expired lease dealt with, nothing changed.
  Ids of the data bucket a slot migration is moving (`moving_bucket`) are skipped: not claimed,
  their expired leases not dealt with, until the bucket was moved.
  or 0, changing nothing, when a `few` call lacks a bucket it needs (or an expired lease waits):
  the caller then claims with every bucket.

  An expired lease counts as a failed attempt (its worker died, or its handler outran leaseMs):
  the timeout is retried after the backoff, or dead-lettered once it has had max attempts, with
  the error LEASE_EXPIRED. A due or leased id whose stored value is unreadable (CORRUPT) or gone
  (MISSING) is dead-lettered: every value is checked before anything is written on its strength,
  so one bad entry never stops its slot. `given up` lists what this call did besides claiming, as
  groups of six: id, code (1 retried after its lease expired, 2 dead after its lease expired,
  3 dead: corrupt, 4 dead: missing, 5 dead: late, 6 dropped: late), attempts, retry or death
  time, stored error text, due time (0 when not known).
  The late policy is decided here, with the claim: a due id claimed more than ARGV[10] ms after
  its due score is dead-lettered or dropped instead of claimed, so no handler ever runs for it
  and no worker crash between the decision and its effect can lose it.
  With a rate limit the bucket refills at ARGV[12] tokens per ms (Redis clock) up to ARGV[13]; a
  claim takes at most as many due ids as there are whole tokens and spends one per claimed id
  (refused ones are free). While due ids wait for tokens, nextDueAt is when the next token comes.
  nextLeaseExpiresAt is the earliest lease expiry left in the slot (this call's leases included),
  so a poller can wake when a dead worker's lease ends instead of at its next sweep. Next buckets
  are the distinct bucket numbers of the first ARGV[5] ids left in due: the keys the next `few`
  claim should pass.
  Each claimed id gets attempt + 1 and a fencing token above every token the slot handed before
  (`take_tokens`), so the tokens of one id only grow.
]]
local rcall = redis.call
-- @include stored
-- @include claim-slot
return claim_slot(KEYS, ARGV)
