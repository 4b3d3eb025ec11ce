-- Applies a batch of one run's events, in order: for each, decides whether it belongs to the run and, if so,
-- appends it to the resume buffer and updates the run's state. Atomic; idempotent per seq. It publishes nothing:
-- it returns the api nodes that watch the run (the creating node, the run hash's 'node', and those that joined
-- later, KEYS[3]), and the relay publishes what every run of its batch applied in one message per node
-- (io.agentrun.model.live.LiveMessage's format), once the batch's scripts have answered, so a threaded run's
-- run_end reaches a node only after the thread script wrote the history and released the lock.
-- KEYS[1] ar:run:{id}           KEYS[2] ar:run:{id}:events     KEYS[3] ar:run:{id}:watchers
-- ARGV[1] buffer max events   ARGV[2] buffer TTL after run_end (ms)   ARGV[3] buffer TTL while running (ms)
-- ARGV[4] project id   ARGV[5] agent id   ARGV[6] thread id ('' for a one-off run): the run's owners, as the api wrote
-- them; written again (never overwriting) at every run_start, so a run Redis lost (a failover that dropped acknowledged
-- writes, a rebuild from the topic) is found by its project again
-- then 12 fields per event, from ARGV[7]:
--   seq, envelope JSON, type, Kafka partition, Kafka offset, created_at,
--   run_start: attempt | run_end: status | error: code,   run_end: output | error: message,
--   epoch ('0': written before epochs existed, never fenced),   traceparent ('' when not traced),
--   run_end: usage JSON,   run_end: output_json ('' when the run answered no JSON)
--   approval_required: call id, the pending approval JSON, checkpoint JSON, deadline (ms) in the four detail fields;
--   approval_decided: decision, reason, decided by
-- Returns one decision per event: 1 applied, 0 applied before (a replayed record), 2 fenced (an epoch the run
-- has left: a worker that lost its lease), 3 after the run's run_end or of a deleted thread (ignored), 4 after a
-- hole in its attempt's events (ignored: nothing may follow a hole). Returned as {decisions, watchers, key family}:
-- the ids of the api nodes watching the run when any event was applied or the batch holds its run_end, and the
-- publishable key family whose spend the run counts against ('' when none, or when the batch holds no run_end). A failed write fails the call after the decisions it made are applied (the
-- batch is read again and those count as applied before; their watchers read them from the buffer).
local FIELDS = 12

local function apply(seqText, envelope, kind, partition, offset, createdAt, detail1, detail2, epochText, detail3, detail4)
  local seq = tonumber(seqText)
  local epoch = tonumber(epochText)
  local state = redis.call('HMGET', KEYS[1], 'epoch', 'end_seq', 'status', 'last_seq', 'deleted')
  if state[5] then
    -- its thread was deleted: nothing of the run is kept, not even a late event
    return 3
  end
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
        local stale = redis.call('XRANGE', KEYS[2], seqText .. '-0', '+')
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
        redis.call('HDEL', KEYS[1], 'end_seq', 'output', 'output_json', 'error_code', 'error_message', 'ended_at', 'usage')
        redis.call('HSET', KEYS[1], 'status', 'running', 'last_seq', seq - 1)
        state[2] = nil
        state[3] = 'running'
        state[4] = tostring(seq - 1)
      end
    end
  end
  if state[2] and seq > tonumber(state[2]) then
    return 3
  end
  if kind ~= 'run_start' and state[4] and seq > tonumber(state[4]) + 1 then
    -- An attempt's events are numbered without gaps, so a seq past last_seq + 1 means an earlier event never
    -- reached Kafka: its send timed out (a broker lost, say) while later ones went through. Applied, it would
    -- leave a hole in every client's stream and in the history. Ignored, the attempt goes no further; its
    -- worker saw the send fail and hands the run back, and the next attempt starts at last_seq + 1.
    return 4
  end
  local added = redis.pcall('XADD', KEYS[2], 'MAXLEN', '~', ARGV[1], seqText .. '-1', 'e', envelope)
  if type(added) == 'table' and added.err then
    if string.find(added.err, 'equal or smaller', 1, true) then
      -- An id not above the stream's top: this event was applied before (at-least-once redelivery).
      return 0
    end
    -- Anything else (out of memory, wrong type) must fail the batch so it is read again, not skipped.
    return -1, added.err
  end
  local status = state[3]
  local ended = status == 'completed' or status == 'failed' or status == 'cancelled' or status == 'timed_out'
  if seq > tonumber(state[4] or '-1') then
    redis.call('HSET', KEYS[1], 'last_seq', seqText)
  end
  if kind == 'run_start' then
    redis.call('HSET', KEYS[1], 'attempt', detail1, 'start_partition', partition, 'start_offset', offset, 'started_at', createdAt)
    redis.call('HSETNX', KEYS[1], 'first_offset', offset)
    if not ended then
      redis.call('HSET', KEYS[1], 'status', 'running')
    end
    redis.call('PEXPIRE', KEYS[2], ARGV[3])
  elseif kind == 'error' then
    redis.call('HSET', KEYS[1], 'error_code', detail1, 'error_message', detail2)
  elseif kind == 'run_end' then
    redis.call('HSET', KEYS[1], 'status', detail1, 'output', detail2, 'ended_at', createdAt, 'end_seq', seqText, 'usage', detail3)
    if detail4 ~= '' then
      redis.call('HSET', KEYS[1], 'output_json', detail4)
    end
    redis.call('HDEL', KEYS[1], 'checkpoint')
    redis.call('PEXPIRE', KEYS[2], ARGV[2])
  elseif kind == 'approval_required' then
    -- The run waits for a person: what they decide on (detail2), where the run resumes from (detail3), until when
    -- (detail4, ms). An earlier pause's decision is history now. The run and its buffer are kept past the deadline.
    if not ended then
      if redis.call('HGET', KEYS[1], 'approval_call') ~= detail1 then
        -- (the worker's park may have recorded this pause first, and a decision on it since: that one stays)
        redis.call('HDEL', KEYS[1], 'decision', 'decision_reason', 'decided_by', 'decided_at')
      end
      redis.call('HSET', KEYS[1], 'status', 'waiting', 'approval_call', detail1, 'approval', detail2, 'checkpoint', detail3,
        'approval_deadline', detail4)
      local keep = tonumber(detail4) + tonumber(ARGV[3])
      redis.call('PEXPIREAT', KEYS[1], keep)
      redis.call('PEXPIREAT', KEYS[2], keep)
    end
  elseif kind == 'approval_decided' then
    -- The attempt that resumed the run says what was decided (restored so after a rebuild from the topic).
    if not ended then
      redis.call('HSET', KEYS[1], 'status', 'running', 'decision', detail1, 'decision_reason', detail2, 'decided_by', detail3)
    end
  end
  return 1
end

local function restoreOwners(createdAt)
  redis.call('HSETNX', KEYS[1], 'project_id', ARGV[4])
  redis.call('HSETNX', KEYS[1], 'agent_id', ARGV[5])
  redis.call('HSETNX', KEYS[1], 'created_at', createdAt)
  if ARGV[6] ~= '' then
    redis.call('HSETNX', KEYS[1], 'thread_id', ARGV[6])
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end

local decisions = {}
local applied = false
local ended = false
local failure = nil
local count = (#ARGV - 6) / FIELDS
for i = 0, count - 1 do
  local a = 7 + i * FIELDS
  local kind = ARGV[a + 2]
  local decision, err = apply(ARGV[a], ARGV[a + 1], kind, ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6], ARGV[a + 7], ARGV[a + 8], ARGV[a + 10], ARGV[a + 11])
  if decision == -1 then
    failure = err
    break
  end
  decisions[i + 1] = decision
  applied = applied or decision == 1
  if decision == 0 or decision == 1 then
    if kind == 'run_start' then
      restoreOwners(ARGV[a + 5])
    elseif kind == 'run_end' then
      ended = true
    end
  end
end
if failure then
  return redis.error_reply(failure)
end
local watchers = {}
-- Also for a run_end applied before: a threaded run's run_end is published when the thread script applies it, which
-- may be at its batch's second reading (the first failed in the thread's write).
if applied or ended then
  local creator = redis.call('HGET', KEYS[1], 'node')
  if creator then
    watchers[1] = creator
  end
  for _, node in ipairs(redis.call('SMEMBERS', KEYS[3])) do
    if node ~= creator then
      watchers[#watchers + 1] = node
    end
  end
end
local family = ''
if ended then
  family = redis.call('HGET', KEYS[1], 'key_family') or ''
end
return {decisions, watchers, family}
