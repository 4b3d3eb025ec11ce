-- Extends a worker's lease on a run, only while the worker still owns the run in the same epoch.
-- KEYS[1] ar:run:{id}   ARGV[1] worker id   ARGV[2] epoch   ARGV[3] new lease deadline (ms)
-- Returns 1 when renewed; 2 when the run ended in this worker's own epoch (its run_end was applied, or the worker
-- released it as ended, before it let go of the run: nothing to renew, nothing lost); 0 when the lease was lost
-- (taken over or handed back).
local h = redis.call('HMGET', KEYS[1], 'owner', 'epoch', 'status')
local status = h[3]
local ended = status == 'completed' or status == 'failed' or status == 'cancelled' or status == 'timed_out'
if ended and h[2] == ARGV[2] and (h[1] == ARGV[1] or h[1] == '') then
  -- Ended in this epoch: by this worker (its release clears the owner before the run leaves the worker's list).
  return 2
end
if h[1] ~= ARGV[1] or h[2] ~= ARGV[2] then
  return 0
end
redis.call('HSET', KEYS[1], 'lease_until', ARGV[3])
return 1
