-- Extends a worker's lease on a run, only while the worker still owns the run in the same epoch.
-- KEYS[1] ar:run:{id}   ARGV[1] worker id   ARGV[2] epoch   ARGV[3] new lease deadline (ms)
-- Returns 1 when renewed; 2 when the run ended in this worker's own epoch (its run_end was applied before the
-- worker let go of the run: nothing to renew, nothing lost); 0 when the lease was lost (taken over or handed back).
local h = redis.call('HMGET', KEYS[1], 'owner', 'epoch', 'status')
if h[1] ~= ARGV[1] or h[2] ~= ARGV[2] then
  return 0
end
local status = h[3]
if status == 'completed' or status == 'failed' or status == 'cancelled' or status == 'timed_out' then
  return 2
end
redis.call('HSET', KEYS[1], 'lease_until', ARGV[3])
return 1
