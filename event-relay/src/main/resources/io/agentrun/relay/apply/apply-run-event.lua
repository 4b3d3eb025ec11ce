-- Decides whether one event belongs to its run and, if so, applies it: resume buffer and run state. Atomic;
-- idempotent per seq. Publishing (and the thread's history) follow in a second step, only for events this
-- script applied or had applied before — never for fenced ones.
-- KEYS[1] ar:run:{id}           KEYS[2] ar:run:{id}:events
-- ARGV[1] seq   ARGV[2] envelope JSON   ARGV[3] type
-- ARGV[4] buffer max events   ARGV[5] buffer TTL after run_end (ms)   ARGV[6] buffer TTL while running (ms)
-- ARGV[7] Kafka partition   ARGV[8] Kafka offset   ARGV[9] created_at
-- ARGV[10] run_start: attempt | run_end: status | error: code
-- ARGV[11] run_end: output | error: message
-- ARGV[12] the event's epoch ('0': written before epochs existed, never fenced)
-- Returns 1 applied, 0 applied before (a replayed record), 2 fenced (an epoch the run has left: a worker that
-- lost its lease), 3 after the run's run_end (ignored).
local seq = tonumber(ARGV[1])
local kind = ARGV[3]
local epoch = tonumber(ARGV[12])
local state = redis.call('HMGET', KEYS[1], 'epoch', 'end_seq', 'status', 'last_seq')
if epoch > 0 then
  local current = tonumber(state[1] or '0')
  if epoch < current then
    return 2
  end
  if epoch > current then
    -- Only when Redis lost the claim (a rebuild from the topic, say): the events say which epoch is current.
    redis.call('HSET', KEYS[1], 'epoch', epoch)
    if kind == 'run_start' then
      -- A later epoch's run_start supersedes what the earlier epoch wrote from its seq on (the live relay
      -- fenced that tail when the claim was made; a rebuild sees it first and takes it back here).
      local stale = redis.call('XRANGE', KEYS[2], ARGV[1] .. '-0', '+')
      for _, entry in ipairs(stale) do
        redis.call('XDEL', KEYS[2], entry[1])
      end
      if #stale > 0 then
        if seq > 0 then
          redis.call('XSETID', KEYS[2], (seq - 1) .. '-1')
        else
          redis.call('DEL', KEYS[2])
        end
      end
      redis.call('HDEL', KEYS[1], 'end_seq', 'output', 'error_code', 'error_message', 'ended_at')
      redis.call('HSET', KEYS[1], 'status', 'running', 'last_seq', seq - 1)
      state[2] = nil
      state[3] = 'running'
    end
  end
end
if state[2] and seq > tonumber(state[2]) then
  return 3
end
local added = redis.pcall('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], ARGV[1] .. '-1', 'e', ARGV[2])
if type(added) == 'table' and added.err then
  if string.find(added.err, 'equal or smaller', 1, true) then
    -- An id not above the stream's top: this event was applied before (at-least-once redelivery).
    return 0
  end
  -- Anything else (out of memory, wrong type) must fail the batch so it is read again, not skipped.
  return redis.error_reply(added.err)
end
local status = state[3]
local ended = status == 'completed' or status == 'failed' or status == 'cancelled' or status == 'timed_out'
if seq > tonumber(state[4] or '-1') then
  redis.call('HSET', KEYS[1], 'last_seq', ARGV[1])
end
if kind == 'run_start' then
  redis.call('HSET', KEYS[1], 'attempt', ARGV[10], 'start_partition', ARGV[7], 'start_offset', ARGV[8], 'started_at', ARGV[9])
  redis.call('HSETNX', KEYS[1], 'first_offset', ARGV[8])
  if not ended then
    redis.call('HSET', KEYS[1], 'status', 'running')
  end
  redis.call('PEXPIRE', KEYS[2], ARGV[6])
elseif kind == 'error' then
  redis.call('HSET', KEYS[1], 'error_code', ARGV[10], 'error_message', ARGV[11])
elseif kind == 'run_end' then
  redis.call('HSET', KEYS[1], 'status', ARGV[10], 'output', ARGV[11], 'ended_at', ARGV[9], 'end_seq', ARGV[1])
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
end
return 1
