-- A sweeper looks at one run the due index named. Safe to run from any number of workers at once: the
-- script decides, once, what happens to the run.
-- KEYS[1] ar:run:{id}   KEYS[2] ar:cancel:{id} (the run's cancel flag)   KEYS[3] ar:run:{id}:events (its resume buffer)
-- ARGV[1] now (ms)   ARGV[2] claim timeout (ms): an unclaimed command is produced again after it (doubling
-- each time, at most 16x; from the lease instead for a run that was claimed before)   ARGV[3] start timeout (ms): a run never claimed this long after it was accepted
-- ends failed   ARGV[4] attempts: a run claimed this often without ending ends failed   ARGV[5] sweeper's
-- worker id   ARGV[6] lease (ms)   ARGV[7] an api node proven dead (its lease key gone), or '': a run it created and
-- never confirmed ends now   ARGV[8] how soon to look again at a run whose creator has not confirmed it (ms)
-- Returns {action, time_or_epoch, fence_seq, reason}:
--   'gone'    the run is unknown: drop it from the index
--   'done'    the run ended: drop it from the index
--   'wait'    nothing to do before time_or_epoch (ms); also a run that waits for a person's decision on a tool call
--             (approval_call, no decision), until its deadline, when the call is denied and the run goes on
--   'requeue' produce the command again now (the hash's 'command'); look again at time_or_epoch. Only for runs
--             a worker claimed before, or whose command an api node saw acknowledged by Kafka ('sent')
--   'waiting' the run waits for its thread (thread id in reason): nothing to do before time_or_epoch, unless the
--             thread is free or handed to it already (then the sweeper hands it on / starts it)
--   'giveup'  the sweeper claimed the run (epoch time_or_epoch, events from fence_seq + 1) to end it failed
--   'unsent'  never claimed, and its creating api node (reason) has not confirmed its command: if that node is
--             dead, sweep again naming it in ARGV[7]; else look again at time_or_epoch
local h = redis.call('HMGET', KEYS[1], 'status', 'owner', 'lease_until', 'epoch', 'requeue_at', 'requeues',
  'created_ms', 'last_seq', 'command', 'sent', 'waiting', 'thread_id', 'creator', 'approval_call', 'decision',
  'approval_deadline', 'resumes')
local status = h[1]
if not status then
  return {'gone', 0, -1, ''}
end
if status == 'completed' or status == 'failed' or status == 'cancelled' or status == 'timed_out' then
  return {'done', 0, -1, ''}
end
local now = tonumber(ARGV[1])
if h[11] == '1' then
  -- Its command is produced once the thread is handed to it; neither claim nor start timeouts run meanwhile.
  return {'waiting', now + tonumber(ARGV[2]), -1, h[12] or ''}
end
local lease = tonumber(h[3] or '0')
if h[2] and h[2] ~= '' then
  if lease > now then
    return {'wait', lease, -1, ''}
  end
  -- The owner stopped renewing (crashed, hung, partitioned): take the run from it. Its renewals now fail and
  -- its late events are fenced by the next claim's epoch.
  redis.call('HSET', KEYS[1], 'owner', '', 'lease_until', '0', 'requeue_at', '0')
  h[5] = '0'
end
if h[14] and h[14] ~= '' and not h[15] then
  -- Paused for a person's decision: nobody runs it meanwhile. Cancelled, it goes on now (to end cancelled); at the
  -- deadline the call is denied and it goes on; else look again then.
  if redis.call('EXISTS', KEYS[2]) == 0 then
    local deadline = tonumber(h[16] or '0')
    if deadline > now then
      return {'wait', deadline, -1, ''}
    end
    redis.call('HSET', KEYS[1], 'decision', 'deny', 'decision_reason', 'nobody decided before the deadline',
      'decided_by', 'deadline')
  end
  h[5] = '0'
end
local epoch = tonumber(h[4] or '0')
local created = tonumber(h[7] or '0')
local reason = ''
-- Going on after a person decided is not another attempt: only claims that were not resumes count.
if epoch - tonumber(h[17] or '0') >= tonumber(ARGV[4]) then
  reason = 'attempts_exhausted'
elseif epoch == 0 and created > 0 and now - created > tonumber(ARGV[3]) then
  reason = 'not_started'
elseif not h[9] and #redis.call('XRANGE', KEYS[3], '0-1', '0-1') == 0 then
  -- Neither the api's copy of the command nor the run_start it can be told again from (RunOwnership.commandToProduce):
  -- a rebuild from the topic or a failover restores a run's events, not the api's copy, and such a run goes on.
  reason = 'command_lost'
end
if reason ~= '' then
  epoch = redis.call('HINCRBY', KEYS[1], 'epoch', 1)
  redis.call('HSET', KEYS[1], 'owner', ARGV[5], 'worker', ARGV[5], 'lease_until', now + tonumber(ARGV[6]),
    'status', 'running')
  return {'giveup', epoch, tonumber(h[8] or '-1'), reason}
end
if epoch == 0 and not h[10] then
  -- Never claimed, and no api node confirmed that its command reached Kafka: it may be a run the node refused
  -- without being able to record it (Redis was down). Producing it again could execute a refused run; it is
  -- ended at the start timeout instead, unless its command arrives first, or sooner when the node that created it
  -- is dead: that node told no client it was accepted (it answers none once its own lease may have lapsed), and
  -- it will not confirm or refuse it now. Marked abandoned, so that a refusal still on its way counts as one.
  local creator = h[13]
  if creator and creator ~= '' then
    if creator == ARGV[7] then
      epoch = redis.call('HINCRBY', KEYS[1], 'epoch', 1)
      redis.call('HSET', KEYS[1], 'owner', ARGV[5], 'worker', ARGV[5], 'lease_until', now + tonumber(ARGV[6]),
        'status', 'running', 'abandoned', '1')
      return {'giveup', epoch, tonumber(h[8] or '-1'), 'not_queued'}
    end
    return {'unsent', math.min(now + tonumber(ARGV[8]), created + tonumber(ARGV[3]) + 1), -1, creator}
  end
  return {'wait', created + tonumber(ARGV[3]) + 1, -1, ''}
end
local due = tonumber(h[5] or '-1')
if due < 0 then
  due = created + tonumber(ARGV[2])
end
if due > now then
  return {'wait', due, -1, ''}
end
local requeues = redis.call('HINCRBY', KEYS[1], 'requeues', 1)
-- A run that was claimed before (taken over, handed back) is claimed again within milliseconds once its command
-- lands, so retry soon (the send may have failed: Kafka down); a never-claimed one may just be waiting its turn.
local base = tonumber(ARGV[2])
if epoch > 0 then
  base = math.min(base, tonumber(ARGV[6]))
end
local backoff = base * math.min(2 ^ (requeues - 1), 16)
redis.call('HSET', KEYS[1], 'requeue_at', now + backoff)
return {'requeue', now + backoff, -1, ''}
