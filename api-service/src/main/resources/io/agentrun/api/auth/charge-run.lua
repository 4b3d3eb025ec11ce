-- Counts one run against a publishable key family's daily spend cap, atomically with the check.
-- KEYS[1] the day's spend hash (runs, tokens); ARGV[1] run cap, ARGV[2] token cap, ARGV[3] TTL seconds.
-- Returns 1 when the run is counted, 0 when the cap is reached (nothing counted).
local spent = redis.call('HMGET', KEYS[1], 'runs', 'tokens')
local runs = tonumber(spent[1]) or 0
local tokens = tonumber(spent[2]) or 0
if runs >= tonumber(ARGV[1]) or tokens >= tonumber(ARGV[2]) then
  return 0
end
redis.call('HINCRBY', KEYS[1], 'runs', 1)
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
