-- The api node could not confirm a run's command to its client: it refuses the run, unless a worker has
-- claimed it already (then the command did reach Kafka, and the run is accepted after all). Decides once:
-- afterwards no worker claims the run, so a run is never both refused and executed.
-- KEYS[1] ar:run:{id}   ARGV[1] now (ISO-8601)   ARGV[2] retention (ms)
-- Returns 1 = refused, 2 = refused already: a sweeper that found this node dead is ending it, 0 = claimed already:
-- the run goes on.
local h = redis.call('HMGET', KEYS[1], 'epoch', 'abandoned')
if h[2] == '1' then
  -- A sweeper found this node dead and is ending the run (not_queued) itself: refused, and never executed.
  return 2
end
if tonumber(h[1] or '0') > 0 then
  return 0
end
-- A tombstone even when the hash is missing (its creation may have failed): a command that still arrives is skipped.
redis.call('HSET', KEYS[1], 'status', 'failed', 'error_code', 'not_queued',
  'error_message', 'the run command could not be confirmed in Kafka', 'ended_at', ARGV[1])
redis.call('HDEL', KEYS[1], 'command')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
