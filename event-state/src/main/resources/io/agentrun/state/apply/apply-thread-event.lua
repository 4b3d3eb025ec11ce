-- Applies one event to its thread: history and lock. Atomic and idempotent: a record read again (same
-- Kafka offset; a thread's events are on one partition in order) or an event written again (same run
-- and seq at a later offset) changes nothing.
-- KEYS[1] ar:thread:{id}   KEYS[2] ar:thread:{id}:messages   KEYS[3] ar:thread:{id}:lock   KEYS[4] ar:thread:{id}:runs
-- KEYS[5] ar:thread:{id}:deleted (a deleted thread takes nothing more)   KEYS[6] ar:thread:{id}:waiting (runs waiting
-- for the thread: at run_end the lock goes to the first of them instead of being freed)
-- ARGV[1] type   ARGV[2] run id   ARGV[3] Kafka offset   ARGV[4] now   ARGV[5] thread retention (ms)
-- ARGV[6] run_start: the user message JSON | message_final: the assistant message JSON, or '' for one rejected   ARGV[7] seq
-- ARGV[8] Kafka partition (offsets compare only within one; adding partitions moves threads)
-- ARGV[9] run_start: attempt   ARGV[10] run_start: when the run started (ms), its place in the runs index if the
-- api has not put it there (a rebuild)   ARGV[11] the lock's time to live (ms), for the run it is handed to
-- ARGV[12] run_start: the project   ARGV[13] run_start: the agent   ARGV[14] run_start: the thread's metadata JSON
-- (the first run_start of a thread comes first in its partition: its metadata is the thread's)
-- Returns {1 applied | 0 not, the run the lock was handed to or ''}
if redis.call('EXISTS', KEYS[5]) == 1 then
  return {0, ''}
end
if ARGV[1] == 'run_start' then
  -- Who owns the thread, as the api wrote it; never overwritten. Written at every run_start, also one applied before,
  -- so a thread Redis lost (a failover, a rebuild from the topic) is found by its project again.
  redis.call('HSETNX', KEYS[1], 'project_id', ARGV[12])
  redis.call('HSETNX', KEYS[1], 'agent_id', ARGV[13])
  redis.call('HSETNX', KEYS[1], 'created_at', ARGV[4])
  redis.call('HSETNX', KEYS[1], 'metadata', ARGV[14])
end
local applied = redis.call('HMGET', KEYS[1], 'applied_partition', 'applied_offset', 'applied_run', 'applied_seq')
if applied[1] == ARGV[8] and tonumber(ARGV[3]) <= tonumber(applied[2] or '-1') then
  return {0, ''}
end
if applied[3] == ARGV[2] and tonumber(ARGV[7]) <= tonumber(applied[4] or '-1') then
  return {0, ''}
end
if ARGV[1] ~= 'run_start' and applied[3] ~= ARGV[2] and redis.call('HGET', KEYS[1], 'pending_run') ~= ARGV[2]
    and redis.call('HEXISTS', KEYS[1], 'history_len:' .. ARGV[2]) == 0 then
  -- The thread holds no trace of this run's run_start (it sets pending_run and the history_len mark): a Redis failover
  -- dropped it after acknowledging it, and this later event came first. Applied now, it would store the answer without
  -- its question and move the thread past the run_start, which the relays' replay would then skip as applied before.
  -- Left alone, the replay applies the run's events again in order.
  return {0, ''}
end
local handed = ''
redis.call('HSET', KEYS[1], 'applied_partition', ARGV[8], 'applied_offset', ARGV[3], 'applied_run', ARGV[2],
  'applied_seq', ARGV[7], 'updated_at', ARGV[4])
local kind = ARGV[1]
if kind == 'run_start' then
  -- Where the history stood before this run; a later attempt starts over from there, so what an earlier
  -- attempt already stored (a message_final before the worker died) is not kept twice.
  local mark = 'history_len:' .. ARGV[2]
  redis.call('HSETNX', KEYS[1], mark, redis.call('LLEN', KEYS[2]))
  if tonumber(ARGV[9]) > 1 then
    local keep = tonumber(redis.call('HGET', KEYS[1], mark))
    if keep == 0 then
      redis.call('DEL', KEYS[2])
    else
      redis.call('LTRIM', KEYS[2], 0, keep - 1)
    end
  end
  redis.call('ZADD', KEYS[4], 'NX', ARGV[10], ARGV[2])
  -- Held until the run answers: a run that fails says nothing and leaves no dangling question.
  redis.call('HSET', KEYS[1], 'pending_run', ARGV[2], 'pending_user', ARGV[6])
elseif kind == 'message_final' and ARGV[6] ~= '' then
  -- An empty message is an answer rejected for its shape: the model was asked again; nothing is kept.
  if redis.call('HGET', KEYS[1], 'pending_run') == ARGV[2] then
    local user = redis.call('HGET', KEYS[1], 'pending_user')
    if user then
      redis.call('RPUSH', KEYS[2], user)
      redis.call('HDEL', KEYS[1], 'pending_user')
    end
  end
  redis.call('RPUSH', KEYS[2], ARGV[6])
elseif kind == 'run_end' then
  redis.call('HDEL', KEYS[1], 'pending_run', 'pending_user', 'history_len:' .. ARGV[2])
  -- History is written above, before the lock goes: the next turn always sees this one.
  if redis.call('GET', KEYS[3]) == ARGV[2] then
    local next = redis.call('LPOP', KEYS[6])
    if next then
      -- The next waiting run takes the thread now; the relay (or, should it fail first, a sweeper) starts it.
      redis.call('SET', KEYS[3], next, 'PX', ARGV[11])
      redis.call('HSET', KEYS[1], 'active_run', next)
      handed = next
    else
      redis.call('DEL', KEYS[3])
      redis.call('HDEL', KEYS[1], 'active_run')
    end
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('PEXPIRE', KEYS[4], ARGV[5])
return {1, handed}
