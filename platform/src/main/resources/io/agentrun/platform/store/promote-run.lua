-- A waiting run was handed its thread: it stops waiting, once. Its command counts as sent from now (a sweeper
-- produces it again should this send be lost) and its start timeout counts from now.
-- KEYS[1] ar:run:{id}   ARGV[1] now (ms)
-- Returns {'promoted', command JSON} | {'started', ''} (not waiting: promoted already, or never waited) |
--         {'ended', ''} (ended, refused or unknown: the thread goes on to the next waiting run)
local h = redis.call('HMGET', KEYS[1], 'status', 'waiting', 'command')
local status = h[1]
if not status or status == 'completed' or status == 'failed' or status == 'cancelled' or status == 'timed_out' then
  return {'ended', ''}
end
if h[2] ~= '1' then
  return {'started', ''}
end
if not h[3] then
  return {'ended', ''}
end
redis.call('HDEL', KEYS[1], 'waiting')
redis.call('HSET', KEYS[1], 'created_ms', ARGV[1], 'sent', '1')
return {'promoted', h[3]}
