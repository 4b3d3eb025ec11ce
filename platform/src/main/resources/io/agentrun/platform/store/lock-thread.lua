-- Takes a thread's lock for a run and records the run on the thread, in one round trip; when ARGV[4] is '1' the
-- thread is new and its hash is written first (fields from ARGV[6] on, as name/value pairs).
-- KEYS[1] ar:thread:{id}   KEYS[2] ar:thread:{id}:lock   KEYS[3] ar:thread:{id}:runs
-- ARGV[1] run id   ARGV[2] lock TTL (ms)   ARGV[3] thread retention (ms)   ARGV[4] '1': create the thread
-- ARGV[5] now (epoch ms)
-- Returns 1 when the run holds the thread, 0 when another run does (nothing written).
if ARGV[4] == '1' then
  local fields = {}
  for i = 6, #ARGV do
    fields[#fields + 1] = ARGV[i]
  end
  redis.call('HSET', KEYS[1], unpack(fields))
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
if not redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 0
end
redis.call('HSET', KEYS[1], 'active_run', ARGV[1])
redis.call('ZADD', KEYS[3], 'NX', ARGV[5], ARGV[1])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return 1
