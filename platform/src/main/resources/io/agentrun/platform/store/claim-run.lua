-- A worker claims a run it took from the commands topic. Atomic: of any number of workers holding copies
-- of the command, one wins; a run that ended (or was refused) is never claimed again.
-- KEYS[1] ar:run:{id}   KEYS[2] ar:cancel:{id} (the run's cancel flag)
-- ARGV[1] worker id   ARGV[2] now (ms)   ARGV[3] lease (ms)
-- Returns {outcome, epoch, fence_seq, resumes}: outcome 1 = claimed (epoch is the new epoch; events of this epoch
-- start at fence_seq + 1; resumes = 1 when the run paused for an approval and goes on from its checkpoint), 0 = the
-- run has ended, -1 = another worker holds a live lease, -2 = Redis does not know the run (it lost the data, or the
-- run's retention passed), 2 = this worker holds a live lease on it already (its own earlier claim whose reply was
-- lost, or a copy of the command while it runs the run: the worker tells them apart by what it executes), -3 = the
-- run waits for a person's decision on a tool call: nobody runs it before one is recorded (or it is cancelled).
local h = redis.call('HMGET', KEYS[1], 'status', 'owner', 'lease_until', 'epoch', 'last_seq', 'approval_call', 'decision',
  'resumed_for')
local status = h[1]
if not status then
  return {-2, 0, -1, 0}
end
local epoch = tonumber(h[4] or '0')
if status == 'completed' or status == 'failed' or status == 'cancelled' or status == 'timed_out' then
  return {0, epoch, -1, 0}
end
local now = tonumber(ARGV[2])
local paused = h[6] and h[6] ~= ''
if h[2] and h[2] ~= '' and tonumber(h[3] or '0') > now then
  if h[2] == ARGV[1] then
    return {2, epoch, tonumber(h[5] or '-1'), paused and 1 or 0}
  end
  return {-1, epoch, -1, 0}
end
if paused and not h[7] and redis.call('EXISTS', KEYS[2]) == 0 then
  return {-3, epoch, -1, 0}
end
-- The new epoch fences every event of the old one the relay has not applied yet: the old epoch's applied
-- events are exactly 0..last_seq now, so this epoch continues at last_seq + 1.
epoch = redis.call('HINCRBY', KEYS[1], 'epoch', 1)
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'worker', ARGV[1], 'lease_until', now + tonumber(ARGV[3]),
  'status', 'running', 'claimed_at', ARGV[2])
redis.call('HDEL', KEYS[1], 'requeue_at', 'requeues')
if paused and h[8] ~= h[6] then
  -- The first claim after this pause: going on after a person decided is not another attempt at the run.
  redis.call('HINCRBY', KEYS[1], 'resumes', 1)
  redis.call('HSET', KEYS[1], 'resumed_for', h[6])
end
return {1, epoch, tonumber(h[5] or '-1'), paused and 1 or 0}
