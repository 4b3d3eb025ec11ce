-- Adds a finished run's tokens to its publishable key family's spend of the day, once per run: a run_end
-- the relay applies again (after a crash, or a rebuild) is not counted twice.
-- KEYS[1] the day's spend hash, KEYS[2] the day's set of counted runs; ARGV[1] run id, ARGV[2] tokens,
-- ARGV[3] TTL seconds. Returns 1 when counted, 0 when it was counted before.
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then
  return 0
end
redis.call('HINCRBY', KEYS[1], 'tokens', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 1
