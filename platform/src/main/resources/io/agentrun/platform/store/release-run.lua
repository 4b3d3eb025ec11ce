-- A worker lets go of a run it owns: it finished (ARGV[3] = the terminal status), or it hands the run back
-- unfinished (ARGV[3] = '') so that the next sweep produces the command again for another worker.
-- KEYS[1] ar:run:{id}   ARGV[1] worker id   ARGV[2] epoch   ARGV[3] terminal status or ''   ARGV[4] now (ISO-8601)
-- Returns 1 when done, 0 when this worker no longer owned the run (a zombie must not end another's run).
local h = redis.call('HMGET', KEYS[1], 'owner', 'epoch')
if h[1] ~= ARGV[1] or h[2] ~= ARGV[2] then
  return 0
end
if ARGV[3] == '' then
  redis.call('HSET', KEYS[1], 'owner', '', 'lease_until', '0')
  redis.call('HSET', KEYS[1], 'requeue_at', '0')
else
  redis.call('HSET', KEYS[1], 'status', ARGV[3], 'ended_at', ARGV[4], 'owner', '', 'lease_until', '0')
end
return 1
