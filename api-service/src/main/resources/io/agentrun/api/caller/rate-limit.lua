-- Two token buckets checked and taken together: one for a publishable key, one for a client IP of it.
-- KEYS[1] key bucket, KEYS[2] IP bucket (hashes: tokens, at); ARGV[1], ARGV[2] their rates per minute.
-- A bucket holds up to one minute's worth and refills continuously; a missing bucket is full.
-- Returns 0 when the request may go ahead (one token taken from each), otherwise the milliseconds until
-- both buckets hold a token again (nothing taken). Redis's clock, so all api nodes agree.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local function level(key, rate)
  local stored = redis.call('HMGET', key, 'tokens', 'at')
  local tokens = tonumber(stored[1])
  local at = tonumber(stored[2])
  if tokens == nil or at == nil then
    return rate
  end
  return math.min(rate, tokens + (now - at) * rate / 60000)
end

local rates = { tonumber(ARGV[1]), tonumber(ARGV[2]) }
local levels = { level(KEYS[1], rates[1]), level(KEYS[2], rates[2]) }
local wait = 0
for i = 1, 2 do
  if levels[i] < 1 then
    wait = math.max(wait, math.ceil((1 - levels[i]) * 60000 / rates[i]))
  end
end
if wait > 0 then
  return wait
end
for i = 1, 2 do
  redis.call('HSET', KEYS[i], 'tokens', tostring(levels[i] - 1), 'at', tostring(now))
  redis.call('PEXPIRE', KEYS[i], 60000)
end
return 0
