-- A worker lets go of a run that waits for a person's decision on a tool call (its approval_required is in Kafka).
-- Only while it still owns the run in the same epoch. Nobody holds the run while the person thinks: the sweeper looks
-- at it again at the deadline (which denies the call), a decision or a cancellation produces its command sooner.
-- KEYS[1] ar:run:{id}   ARGV[1] worker id   ARGV[2] epoch   ARGV[3] tool call id   ARGV[4] deadline (ms)
-- Returns 1 parked, 2 decided already (a fast decision, recorded before this: the caller hands the run back so it
-- goes on at once), 0 this worker no longer owned the run.
local h = redis.call('HMGET', KEYS[1], 'owner', 'epoch', 'approval_call', 'decision')
if h[1] ~= ARGV[1] or h[2] ~= ARGV[2] then
  return 0
end
if h[3] == ARGV[3] and h[4] then
  redis.call('HSET', KEYS[1], 'owner', '', 'lease_until', '0', 'requeue_at', '0')
  return 2
end
if h[3] ~= ARGV[3] then
  -- The relay has not applied the approval_required yet: the pause is recorded here too; a decision left from an
  -- earlier pause of the run is history.
  redis.call('HDEL', KEYS[1], 'decision', 'decision_reason', 'decided_by', 'decided_at')
end
redis.call('HSET', KEYS[1], 'owner', '', 'lease_until', '0', 'requeue_at', '0', 'approval_call', ARGV[3],
  'approval_deadline', ARGV[4])
return 1
