-- Applies one event to its thread: history and lock. Atomic; idempotent by Kafka offset, since all
-- events of a thread are on one partition in order.
-- KEYS[1] ar:thread:{id}   KEYS[2] ar:thread:{id}:messages   KEYS[3] ar:thread:{id}:lock
-- ARGV[1] type   ARGV[2] run id   ARGV[3] Kafka offset   ARGV[4] now   ARGV[5] thread retention (ms)
-- ARGV[6] run_start: the user message JSON | message_final: the assistant message JSON
local applied = tonumber(redis.call('HGET', KEYS[1], 'applied_offset') or '-1')
if tonumber(ARGV[3]) <= applied then
  return 0
end
redis.call('HSET', KEYS[1], 'applied_offset', ARGV[3], 'updated_at', ARGV[4])
local kind = ARGV[1]
if kind == 'run_start' then
  -- Held until the run answers: a run that fails says nothing and leaves no dangling question.
  redis.call('HSET', KEYS[1], 'pending_run', ARGV[2], 'pending_user', ARGV[6])
elseif kind == 'message_final' then
  if redis.call('HGET', KEYS[1], 'pending_run') == ARGV[2] then
    local user = redis.call('HGET', KEYS[1], 'pending_user')
    if user then
      redis.call('RPUSH', KEYS[2], user)
      redis.call('HDEL', KEYS[1], 'pending_user')
    end
  end
  redis.call('RPUSH', KEYS[2], ARGV[6])
elseif kind == 'run_end' then
  redis.call('HDEL', KEYS[1], 'pending_run', 'pending_user')
  -- History is written above, before the lock goes: the next turn always sees this one.
  if redis.call('GET', KEYS[3]) == ARGV[2] then
    redis.call('DEL', KEYS[3])
    redis.call('HDEL', KEYS[1], 'active_run')
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return 1
