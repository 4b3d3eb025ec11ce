-- Applies one event to its run: resume buffer, live channel, run state. Atomic; idempotent per seq.
-- KEYS[1] ar:run:{id}           KEYS[2] ar:run:{id}:events
-- ARGV[1] seq   ARGV[2] envelope JSON   ARGV[3] type   ARGV[4] live channel
-- ARGV[5] buffer max events   ARGV[6] buffer TTL after run_end (ms)   ARGV[7] buffer TTL while running (ms)
-- ARGV[8] Kafka partition   ARGV[9] Kafka offset   ARGV[10] created_at
-- ARGV[11] run_start: attempt | run_end: status | error: code
-- ARGV[12] run_end: output | error: message
-- ARGV[13] W3C traceparent for the live message ('' for none): published as "traceparent\n" before the
--          envelope, so the api node's write of the event joins the trace; the resume buffer keeps the bare envelope
local added = redis.pcall('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], ARGV[1] .. '-1', 'e', ARGV[2])
if type(added) == 'table' and added.err then
  if string.find(added.err, 'equal or smaller', 1, true) then
    -- An id not above the stream's top: this event was applied before (at-least-once redelivery).
    return 0
  end
  -- Anything else (out of memory, wrong type) must fail the batch so it is read again, not skipped.
  return redis.error_reply(added.err)
end
local kind = ARGV[3]
local status = redis.call('HGET', KEYS[1], 'status')
local ended = status == 'completed' or status == 'failed' or status == 'cancelled' or status == 'timed_out'
local last = tonumber(redis.call('HGET', KEYS[1], 'last_seq') or '-1')
if tonumber(ARGV[1]) > last then
  redis.call('HSET', KEYS[1], 'last_seq', ARGV[1])
end
if kind == 'run_start' then
  redis.call('HSET', KEYS[1], 'attempt', ARGV[11], 'start_partition', ARGV[8], 'start_offset', ARGV[9], 'started_at', ARGV[10])
  redis.call('HSETNX', KEYS[1], 'first_offset', ARGV[9])
  if not ended then
    redis.call('HSET', KEYS[1], 'status', 'running')
  end
  redis.call('PEXPIRE', KEYS[2], ARGV[7])
elseif kind == 'error' then
  redis.call('HSET', KEYS[1], 'error_code', ARGV[11], 'error_message', ARGV[12])
elseif kind == 'run_end' then
  redis.call('HSET', KEYS[1], 'status', ARGV[11], 'output', ARGV[12], 'ended_at', ARGV[10], 'end_seq', ARGV[1])
  redis.call('PEXPIRE', KEYS[2], ARGV[6])
end
if ARGV[13] ~= nil and ARGV[13] ~= '' then
  redis.call('PUBLISH', ARGV[4], ARGV[13] .. '\n' .. ARGV[2])
else
  redis.call('PUBLISH', ARGV[4], ARGV[2])
end
return 1
