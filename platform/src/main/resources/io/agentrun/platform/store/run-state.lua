#!lua name=agentrun_run_%VERSION%
-- The run's lifecycle in Redis: every transition of a run, of its thread's lock and queue and of the due index, as one
-- Redis Function library. Redis keeps functions with its data (persisted and replicated), so a restarted or promoted
-- server answers without a NOSCRIPT; a server that lost them (no persistence) answers "Function not found" and the
-- caller loads the library again (RunLibrary).
--
-- Versioned: every function's name ends in this library's version (a hash of this source), so two versions of the
-- services during a rolling upgrade each call their own code and never the other's.
--
-- Each function is a transition; KEYS and ARGV are named as in an EVAL script, and each function's comment says what
-- they hold and what it returns. The helpers below are the one place for what several transitions share.
local VERSION = '%VERSION%'

-- A run that ended: no transition moves it again.
local function is_terminal(status)
  return status == 'completed' or status == 'failed' or status == 'cancelled' or status == 'timed_out'
end

-- Whether h (the run's HMGET of 'owner', 'epoch', …) says the worker holds the run in that epoch.
local function owns(h, worker, epoch)
  return h[1] == worker and h[2] == epoch
end

-- A new writer of the run's events (a claim, a sweeper that ends it): the epoch after the current one (which the
-- caller read), fencing every event of the epochs before it that the relay has not applied yet, and a lease until
-- lease_until. More fields may follow as name/value pairs. Returns the new epoch.
local function take(run, current_epoch, worker, lease_until, ...)
  local epoch = current_epoch + 1
  redis.call('HSET', run, 'epoch', epoch, 'owner', worker, 'worker', worker, 'lease_until', lease_until, 'status', 'running', ...)
  return epoch
end

-- Nobody holds the run now (handed back, parked, lapsed, ended); a sweep may produce its command at once. More fields
-- may follow as name/value pairs.
local function let_go(run, ...)
  redis.call('HSET', run, 'owner', '', 'lease_until', '0', 'requeue_at', '0', ...)
end

-- A hash's writes gathered over one call and sent as one HSET and one HDEL: a transition that reads its state once
-- and decides event after event writes what it decided once. set(name, value, ...) and unset(name, ...) gather (the
-- last word on a field wins); flush() writes what is gathered. A call flushes before it returns, a failure's reply
-- included: what it decided stays decided.
local function hash_writes(key)
  local values, dropped = {}, {}
  local writes = {}
  function writes.set(...)
    local args = {...}
    for i = 1, #args, 2 do
      values[args[i]] = args[i + 1]
      dropped[args[i]] = nil
    end
  end
  function writes.unset(...)
    for _, name in ipairs({...}) do
      values[name] = nil
      dropped[name] = true
    end
  end
  function writes.flush()
    local fields, names = {}, {}
    for name, value in pairs(values) do
      fields[#fields + 1] = name
      fields[#fields + 1] = value
    end
    for name in pairs(dropped) do
      names[#names + 1] = name
    end
    if #fields > 0 then
      redis.call('HSET', key, unpack(fields))
    end
    if #names > 0 then
      redis.call('HDEL', key, unpack(names))
    end
    values, dropped = {}, {}
  end
  return writes
end

-- The thread's lock goes to the first run waiting for it (for lock_ttl ms), or is freed when none waits; the thread's
-- 'active_run' says so through thread_writes (its hash_writes). has_waiting is the thread's field of that name: '0' when
-- no run has waited since the list was last found empty (lock_or_wait sets '1'), so the list is not looked at; nil when
-- unknown. Returns the run it went to, or '' when freed.
local function hand_thread_to_next(lock, thread_writes, waiting, lock_ttl, has_waiting)
  local next = has_waiting ~= '0' and redis.call('LPOP', waiting)
  if next then
    redis.call('SET', lock, next, 'PX', lock_ttl)
    thread_writes.set('active_run', next)
    return next
  end
  redis.call('DEL', lock)
  thread_writes.unset('active_run')
  if has_waiting ~= '0' then
    thread_writes.set('has_waiting', '0')
  end
  return ''
end

-- A worker claims a run it took from the commands topic. Atomic: of any number of workers holding copies
-- of the command, one wins; a run that ended (or was refused) is never claimed again.
-- KEYS[1] ar:run:{id}   KEYS[2] ar:cancel:{id} (the run's cancel flag)
-- ARGV[1] worker id   ARGV[2] now (ms)   ARGV[3] lease (ms)
-- Returns {outcome, epoch, fence_seq, resumes[, entry_stands]}: outcome 1 = claimed (epoch is the new epoch; events of
-- this epoch start at fence_seq + 1; resumes = 1 when the run paused for an approval and goes on from its checkpoint;
-- entry_stands = 1 when the run's due index entry need not move to the lease's end), 0 = the
-- run has ended, -1 = another worker holds a live lease, -2 = Redis does not know the run (it lost the data, or the
-- run's retention passed), 2 = this worker holds a live lease on it already (its own earlier claim whose reply was
-- lost, or a copy of the command while it runs the run: the worker tells them apart by what it executes), -3 = the
-- run waits for a person's decision on a tool call: nobody runs it before one is recorded (or it is cancelled).
local function claim_run(KEYS, ARGV)
  local h = redis.call('HMGET', KEYS[1], 'status', 'owner', 'lease_until', 'epoch', 'last_seq', 'approval_call', 'decision',
    'resumed_for', 'requeue_at', 'requeues', 'created_ms')
  local status = h[1]
  if not status then
    return {-2, 0, -1, 0}
  end
  local epoch = tonumber(h[4] or '0')
  if is_terminal(status) then
    return {0, epoch, -1, 0}
  end
  local now = tonumber(ARGV[2])
  local paused = h[6] and h[6] ~= ''
  if h[2] and h[2] ~= '' and tonumber(h[3] or '0') > now then
    if h[2] == ARGV[1] then
      return {2, epoch, tonumber(h[5] or '-1'), paused and 1 or 0}
    end
    return {-1, epoch, -1, 0}
  end
  if paused and not h[7] and redis.call('EXISTS', KEYS[2]) == 0 then
    return {-3, epoch, -1, 0}
  end
  -- The new epoch fences every event of the old one the relay has not applied yet: the old epoch's applied
  -- events are exactly 0..last_seq now, so this epoch continues at last_seq + 1.
  if paused and h[8] ~= h[6] then
    -- The first claim after this pause: going on after a person decided is not another attempt at the run.
    redis.call('HINCRBY', KEYS[1], 'resumes', 1)
    epoch = take(KEYS[1], epoch, ARGV[1], now + tonumber(ARGV[3]), 'claimed_at', ARGV[2], 'resumed_for', h[6])
  else
    epoch = take(KEYS[1], epoch, ARGV[1], now + tonumber(ARGV[3]), 'claimed_at', ARGV[2])
  end
  if h[9] or h[10] then
    redis.call('HDEL', KEYS[1], 'requeue_at', 'requeues')
  end
  -- A first claim moments after the api wrote the run: the api's entry in the due index (its claim timeout on) stands
  -- in for the lease's, and the lease renewals move it (XX); a sweep that comes first finds the lease and waits.
  local entry_stands = epoch == 1 and not h[10] and h[11] and now - tonumber(h[11]) < tonumber(ARGV[3]) / 2
  return {1, epoch, tonumber(h[5] or '-1'), paused and 1 or 0, entry_stands and 1 or 0}
end

-- Extends a worker's lease on a run, only while the worker still owns the run in the same epoch.
-- KEYS[1] ar:run:{id}   ARGV[1] worker id   ARGV[2] epoch   ARGV[3] new lease deadline (ms)
-- Returns 1 when renewed; 2 when the run ended in this worker's own epoch (its run_end was applied, or the worker
-- released it as ended, before it let go of the run: nothing to renew, nothing lost); 0 when the lease was lost
-- (taken over or handed back).
local function renew_lease(KEYS, ARGV)
  local h = redis.call('HMGET', KEYS[1], 'owner', 'epoch', 'status')
  local status = h[3]
  local ended = is_terminal(status)
  if ended and h[2] == ARGV[2] and (h[1] == ARGV[1] or h[1] == '') then
    -- Ended in this epoch: by this worker (its release clears the owner before the run leaves the worker's list).
    return 2
  end
  if not owns(h, ARGV[1], ARGV[2]) then
    return 0
  end
  redis.call('HSET', KEYS[1], 'lease_until', ARGV[3])
  return 1
end

-- A worker lets go of a run it owns: it finished (ARGV[3] = the terminal status), or it hands the run back
-- unfinished (ARGV[3] = '') so that the next sweep produces the command again for another worker.
-- KEYS[1] ar:run:{id}   ARGV[1] worker id   ARGV[2] epoch   ARGV[3] terminal status or ''   ARGV[4] now (ISO-8601)
-- Returns 1 when done, 0 when this worker no longer owned the run (a zombie must not end another's run).
local function release_run(KEYS, ARGV)
  local h = redis.call('HMGET', KEYS[1], 'owner', 'epoch', 'status')
  if not owns(h, ARGV[1], ARGV[2]) then
    return 0
  end
  if ARGV[3] == '' or is_terminal(h[3]) then
    -- (a run that ended keeps the end it has: its run_end applied first, or its thread deleted under the worker,
    -- cancelled with thread_deleted, which the worker's own end must not overwrite)
    let_go(KEYS[1])
  else
    let_go(KEYS[1], 'status', ARGV[3], 'ended_at', ARGV[4])
  end
  return 1
end

-- A worker lets go of a run that waits for a person's decision on a tool call (its approval_required is in Kafka).
-- Only while it still owns the run in the same epoch. Nobody holds the run while the person thinks: the sweeper looks
-- at it again at the deadline (which denies the call), a decision or a cancellation produces its command sooner.
-- KEYS[1] ar:run:{id}   ARGV[1] worker id   ARGV[2] epoch   ARGV[3] tool call id   ARGV[4] deadline (ms)
-- Returns 1 parked, 2 decided already (a fast decision, recorded before this: the caller hands the run back so it
-- goes on at once), 0 this worker no longer owned the run.
local function park_run(KEYS, ARGV)
  local h = redis.call('HMGET', KEYS[1], 'owner', 'epoch', 'approval_call', 'decision', 'status')
  if not owns(h, ARGV[1], ARGV[2]) or is_terminal(h[5]) then
    -- (a run that ended, its thread deleted under the worker, say, waits for nobody)
    return 0
  end
  if h[3] == ARGV[3] and h[4] then
    let_go(KEYS[1])
    return 2
  end
  if h[3] ~= ARGV[3] then
    -- The relay has not applied the approval_required yet: the pause is recorded here too; a decision left from an
    -- earlier pause of the run is history.
    redis.call('HDEL', KEYS[1], 'decision', 'decision_reason', 'decided_by', 'decided_at')
  end
  let_go(KEYS[1], 'approval_call', ARGV[3], 'approval_deadline', ARGV[4])
  return 1
end

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
local function sweep_run(KEYS, ARGV)
  local h = redis.call('HMGET', KEYS[1], 'status', 'owner', 'lease_until', 'epoch', 'requeue_at', 'requeues',
    'created_ms', 'last_seq', 'command', 'sent', 'waiting', 'thread_id', 'creator', 'approval_call', 'decision',
    'approval_deadline', 'resumes')
  local status = h[1]
  if not status then
    return {'gone', 0, -1, ''}
  end
  if is_terminal(status) then
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
    let_go(KEYS[1])
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
    epoch = take(KEYS[1], epoch, ARGV[5], now + tonumber(ARGV[6]))
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
        epoch = take(KEYS[1], epoch, ARGV[5], now + tonumber(ARGV[6]), 'abandoned', '1')
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
end

-- The api node could not confirm a run's command to its client: it refuses the run, unless a worker has
-- claimed it already (then the command did reach Kafka, and the run is accepted after all). Decides once:
-- afterwards no worker claims the run, so a run is never both refused and executed.
-- KEYS[1] ar:run:{id}   ARGV[1] now (ISO-8601)   ARGV[2] retention (ms)
-- Returns 1 = refused, 2 = refused already: a sweeper that found this node dead is ending it, 0 = claimed already:
-- the run goes on.
local function refuse_run(KEYS, ARGV)
  local h = redis.call('HMGET', KEYS[1], 'epoch', 'abandoned')
  if h[2] == '1' then
    -- A sweeper found this node dead and is ending the run (not_queued) itself: refused, and never executed.
    return 2
  end
  if tonumber(h[1] or '0') > 0 then
    return 0
  end
  -- A tombstone even when the hash is missing (its creation may have failed): a command that still arrives is skipped.
  redis.call('HSET', KEYS[1], 'status', 'failed', 'error_code', 'not_queued',
    'error_message', 'the run command could not be confirmed in Kafka', 'ended_at', ARGV[1])
  redis.call('HDEL', KEYS[1], 'command')
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end

-- An api node confirms a run's command (Kafka acknowledged it) although its own lease may have lapsed meanwhile: a
-- sweeper may have found the node dead and be ending the run. Decides once, on the run's hash.
-- KEYS[1] ar:run:{id}
-- Returns 1 = confirmed ('sent' set; no sweeper ends it as abandoned from now on), or the hash is gone (nothing to
-- mark: the command is the record); 0 = a sweeper abandoned it: the node refuses it to its client.
local function confirm_sent(KEYS, ARGV)
  if redis.call('HGET', KEYS[1], 'abandoned') == '1' then
    return 0
  end
  if redis.call('EXISTS', KEYS[1]) == 1 then
    redis.call('HSET', KEYS[1], 'sent', '1')
  end
  return 1
end

-- A waiting run was handed its thread: it stops waiting, once. Its command counts as sent from now (a sweeper
-- produces it again should this send be lost) and its start timeout counts from now.
-- KEYS[1] ar:run:{id}   ARGV[1] now (ms)
-- Returns {'promoted', command JSON} | {'started', ''} (not waiting: promoted already, or never waited) |
--         {'ended', ''} (ended, refused or unknown: the thread goes on to the next waiting run)
local function promote_run(KEYS, ARGV)
  local h = redis.call('HMGET', KEYS[1], 'status', 'waiting', 'command')
  local status = h[1]
  if not status or is_terminal(status) then
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
end

-- Records a person's decision on a tool call a run waits for, exactly once.
-- KEYS[1] ar:run:{id}
-- ARGV[1] project id   ARGV[2] thread id   ARGV[3] tool call id   ARGV[4] decision (approve | deny)   ARGV[5] reason
-- ARGV[6] who decided   ARGV[7] now (ms)   ARGV[8] now (ISO-8601)
-- Returns {outcome, detail}: 'recorded' (detail: the run's command JSON, to produce now), 'recorded_before' (this very
-- decision by this caller, recorded already), 'not_found' (no such run in
-- this project and thread), 'no_call' (the run waits for no decision on that call), 'decided' (detail: the decision
-- recorded before), 'ended' (detail: the run's status; a run ended undecided), 'expired' (the deadline passed: the sweeper denies it).
local function decide_approval(KEYS, ARGV)
  local h = redis.call('HMGET', KEYS[1], 'project_id', 'thread_id', 'status', 'approval_call', 'decision', 'approval_deadline',
    'command', 'deleted', 'decided_by')
  if not h[1] or h[1] ~= ARGV[1] or (h[2] or '') ~= ARGV[2] or h[8] then
    return {'not_found', ''}
  end
  -- A decision on this call stands after the run goes on and ends: a retry of it is answered as recorded, another
  -- decision as decided, whether or not the resumed run has ended by then.
  if h[4] == ARGV[3] and h[5] then
    if h[5] == ARGV[4] and h[9] == ARGV[6] then
      -- the same decision by the same caller: a retried request whose answer was lost, not a second decision
      return {'recorded_before', ''}
    end
    if h[9] == 'deadline' then
      -- nobody decided in time and the sweeper denied it: every decision after the deadline gets the same answer
      return {'expired', ''}
    end
    return {'decided', h[5]}
  end
  local status = h[3]
  if is_terminal(status) then
    return {'ended', status}
  end
  if h[4] ~= ARGV[3] then
    return {'no_call', ''}
  end
  if tonumber(h[6] or '0') <= tonumber(ARGV[7]) then
    return {'expired', ''}
  end
  redis.call('HSET', KEYS[1], 'decision', ARGV[4], 'decision_reason', ARGV[5], 'decided_by', ARGV[6], 'decided_at', ARGV[8])
  return {'recorded', h[7] or ''}
end

-- A new thread's fields, gathered on its hash_writes: what the api sends (name/value pairs in ARGV from first on), when
-- its retention started, its empty history's length, and no run waiting.
local function new_thread(thread_writes, ARGV, first, now)
  for i = first, #ARGV, 2 do
    thread_writes.set(ARGV[i], ARGV[i + 1])
  end
  thread_writes.set('renewed_at', now, 'history_count', '0', 'has_waiting', '0')
end

-- Takes a free thread lock for run (for lock_ttl ms) and records the run on the thread: 'active_run' (through
-- thread_writes) and its runs index. Writes nothing when another run holds the lock. Returns whether it took it.
local function take_thread(lock, thread_writes, runs, run, lock_ttl, retention, now)
  if not redis.call('SET', lock, run, 'NX', 'PX', lock_ttl) then
    return false
  end
  thread_writes.set('active_run', run)
  redis.call('ZADD', runs, 'NX', now, run)
  redis.call('PEXPIRE', runs, retention)
  return true
end

-- Puts run in the thread's waiting list (at its head when front) and records it on the thread's runs index.
-- Returns {its place (1 = next), the run holding the thread}.
local function wait_for_thread(lock, thread_writes, waiting, runs, run, front, retention, now)
  redis.call('ZADD', runs, 'NX', now, run)
  redis.call('PEXPIRE', runs, retention)
  thread_writes.set('has_waiting', '1')
  local place
  if front then
    redis.call('LPUSH', waiting, run)
    place = 1
  else
    place = redis.call('RPUSH', waiting, run)
  end
  redis.call('PEXPIRE', waiting, retention)
  return {place, redis.call('GET', lock) or ''}
end

-- Takes a thread's lock for a run and records the run on the thread, in one round trip; when ARGV[4] is '1' the
-- thread is new and its hash is written first (fields from ARGV[6] on, as name/value pairs: new_thread).
-- KEYS[1] ar:thread:{id}   KEYS[2] ar:thread:{id}:lock   KEYS[3] ar:thread:{id}:runs
-- ARGV[1] run id   ARGV[2] lock TTL (ms)   ARGV[3] thread retention (ms)   ARGV[4] '1': create the thread
-- ARGV[5] now (epoch ms)
-- Returns 1 when the run holds the thread, 0 when another run does (nothing written but a new thread's hash).
local function lock_thread(KEYS, ARGV)
  local thread = hash_writes(KEYS[1])
  if ARGV[4] == '1' then
    new_thread(thread, ARGV, 6, ARGV[5])
  end
  local taken = take_thread(KEYS[2], thread, KEYS[3], ARGV[1], ARGV[2], ARGV[3], ARGV[5])
  thread.flush()
  if ARGV[4] == '1' then
    redis.call('PEXPIRE', KEYS[1], ARGV[3])
  end
  return taken and 1 or 0
end

-- An idempotency key's record (ar:idem:{digest}): the request's fingerprint, the run it started and when. Reserving is
-- atomic, so of concurrent duplicates (on any api nodes) exactly one starts a run.
-- Returns nil when the key holds no run, else {fingerprint, run id, created (ms)}.
local function idempotency_held(record)
  local held = redis.call('HMGET', record, 'fingerprint', 'run_id', 'created_ms')
  if held[2] then
    return {held[1] or '', held[2], held[3] or '0'}
  end
  return nil
end

local function reserve_key(record, fingerprint, run, now, retention)
  redis.call('HSET', record, 'fingerprint', fingerprint, 'run_id', run, 'created_ms', now)
  redis.call('PEXPIRE', record, retention)
end

-- Reserves an idempotency key for a run. KEYS[1] ar:idem:{digest}   ARGV[1] fingerprint   ARGV[2] run id   ARGV[3] now
-- (ms)   ARGV[4] retention (ms). Returns {} when reserved now, else what it holds (idempotency_held).
local function reserve_idempotency(KEYS, ARGV)
  local held = idempotency_held(KEYS[1])
  if held then
    return held
  end
  reserve_key(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
  return {}
end

-- Moves a key from a run that never came to be to a new one. KEYS[1] ar:idem:{digest}   ARGV[1] the run it should name
-- ARGV[2] the new run   ARGV[3] now (ms). Returns 1 when moved, 0 when it no longer named ARGV[1].
local function take_over_idempotency(KEYS, ARGV)
  if redis.call('HGET', KEYS[1], 'run_id') ~= ARGV[1] then
    return 0
  end
  redis.call('HSET', KEYS[1], 'run_id', ARGV[2], 'created_ms', ARGV[3])
  return 1
end

-- Frees the key of a request that started nothing (refused), so that its retry may. KEYS[1] ar:idem:{digest}
-- ARGV[1] the run it should name. Returns 1 when freed.
local function release_idempotency(KEYS, ARGV)
  if redis.call('HGET', KEYS[1], 'run_id') ~= ARGV[1] then
    return 0
  end
  return redis.call('DEL', KEYS[1])
end

-- Whether a publishable key family's spend of the day (KEYS hash: runs, tokens) leaves room for one more run.
local function spend_has_room(spend, run_cap, token_cap)
  local spent = redis.call('HMGET', spend, 'runs', 'tokens')
  return (tonumber(spent[1]) or 0) < tonumber(run_cap) and (tonumber(spent[2]) or 0) < tonumber(token_cap)
end

local function count_run(spend, ttl_seconds)
  redis.call('HINCRBY', spend, 'runs', 1)
  redis.call('EXPIRE', spend, ttl_seconds)
end

-- Counts one run against a publishable key family's daily spend cap, atomically with the check.
-- KEYS[1] the day's spend hash (runs, tokens)   ARGV[1] run cap   ARGV[2] token cap   ARGV[3] TTL (s).
-- Returns 1 when the run is counted, 0 when the cap is reached (nothing counted).
local function charge_run(KEYS, ARGV)
  if not spend_has_room(KEYS[1], ARGV[1], ARGV[2]) then
    return 0
  end
  count_run(KEYS[1], ARGV[3])
  return 1
end

-- A project's runs index (GET /api/v1/runs) trims itself at most once in this many starts: when a run's creation ms is a
-- multiple of it, so no counter is read or written. A run then costs one command there (ZADD) instead of two or three
-- (a trim, a TTL) at ~48 Redis commands a run; what a trim removes is the runs that left meanwhile.
local PROJECT_RUNS_TRIM_EVERY = 64

-- Lists a run in its project's runs index (run id by creation ms) and, now and then, drops what the index holds beyond
-- the run retention (whose hashes have expired) and beyond its newest cap entries. The index has no TTL of its own: it
-- is bounded by the cap, and a read skips what is older than the retention.
local function index_run(index, run_id, created_ms, retention, cap)
  local created = tonumber(created_ms)
  redis.call('ZADD', index, created, run_id)
  if created % PROJECT_RUNS_TRIM_EVERY == 0 then
    redis.call('ZREMRANGEBYSCORE', index, '-inf', '(' .. tostring(created - tonumber(retention)))
    redis.call('ZREMRANGEBYRANK', index, 0, -(tonumber(cap) + 1))
  end
end

-- The run's record ('queued': fields, a table of name/value pairs) and its due index entry (at due ms): should its
-- command be lost before a worker claims it, a sweeper produces it again. Listed in its project's runs index.
local function record_run(run, due_index, project_runs, run_id, fields, due, now, retention, cap)
  redis.call('ZADD', due_index, due, run_id)
  redis.call('HSET', run, unpack(fields))
  redis.call('PEXPIRE', run, retention)
  index_run(project_runs, run_id, now, retention, cap)
end

-- A run in its project's runs index, alone: a Redis Cluster's start (the index is in its project's slot, not the run's).
-- KEYS[1] ar:project:{id}:runs   ARGV[1] run id   ARGV[2] created (ms)   ARGV[3] run retention (ms)   ARGV[4] the cap
local function index_project_run(KEYS, ARGV)
  index_run(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
  return 1
end

-- Starts a run at the api, in one call: checks the agent exists, the thread (when continued) is the caller's and the
-- agent's, the idempotency key is free and the key family's spend has room; then reserves the key, counts the spend,
-- takes the thread (a new one is created locked; an existing one is taken, or waited for with if_busy enqueue and
-- interrupt, or refused busy with reject), records the run and its due entry. Nothing is written when a check refuses.
-- Used where one call can reach every key (a single primary: KEYS span slots); a Redis Cluster takes the same steps
-- one by one (RunStarts).
-- KEYS[1] ar:run:{id}   KEYS[2] the due index   KEYS[3] ar:agent:{project}:{agent}   KEYS[4] ar:thread:{id}
-- KEYS[5] …:lock   KEYS[6] …:runs   KEYS[7] …:waiting   KEYS[8] ar:idem:{digest}   KEYS[9] the day's spend hash
-- KEYS[10] ar:project:{project}:runs (KEYS[4..9] name the run's key when unused)
-- ARGV[1] run id   ARGV[2] now (ms)   ARGV[3] run retention (ms)   ARGV[4] due (ms)   ARGV[5] thread: 'none' |
-- 'new' | 'reject' | 'enqueue' | 'interrupt'   ARGV[6] lock TTL (ms)   ARGV[7] thread retention (ms)   ARGV[8] caller's
-- project   ARGV[9] the key family a caller is limited to ('' = any)   ARGV[10] agent id   ARGV[11] idempotency
-- fingerprint ('' = no key)   ARGV[12] idempotency retention (ms)   ARGV[13] run cap ('' = no spend cap)   ARGV[14]
-- token cap   ARGV[15] spend TTL (s)   ARGV[16] the project runs index's cap   ARGV[17] n, the run's field count (names
-- and values), then the run's fields, then a new thread's fields (name/value pairs)
-- Returns {'started'} | {'waiting', place, holder} (recorded 'waiting', behind holder) | {'held', fingerprint, run id,
-- created ms} (the idempotency key holds a run) | {'no_agent'} | {'no_thread'} (missing, or not the caller's) |
-- {'other_agent', agent id} | {'busy', holder} | {'spend_cap'}
local function start_run(KEYS, ARGV)
  local plan, now = ARGV[5], ARGV[2]
  if ARGV[11] ~= '' then
    local held = idempotency_held(KEYS[8])
    if held then
      return {'held', held[1], held[2], held[3]}
    end
  end
  if redis.call('EXISTS', KEYS[3]) == 0 then
    return {'no_agent'}
  end
  if plan ~= 'none' and plan ~= 'new' then
    local t = redis.call('HMGET', KEYS[4], 'project_id', 'agent_id', 'key_family')
    if t[1] ~= ARGV[8] or (ARGV[9] ~= '' and t[3] ~= ARGV[9]) then
      return {'no_thread'}
    end
    if t[2] ~= ARGV[10] then
      return {'other_agent', t[2] or ''}
    end
  end
  if ARGV[13] ~= '' and not spend_has_room(KEYS[9], ARGV[13], ARGV[14]) then
    return {'spend_cap'}
  end
  local n = tonumber(ARGV[17])
  local thread = hash_writes(KEYS[4])
  local reply = {'started'}
  if plan == 'new' then
    new_thread(thread, ARGV, 18 + n, now)
    take_thread(KEYS[5], thread, KEYS[6], ARGV[1], ARGV[6], ARGV[7], now)
  elseif plan ~= 'none' and not take_thread(KEYS[5], thread, KEYS[6], ARGV[1], ARGV[6], ARGV[7], now) then
    if plan == 'reject' then
      return {'busy', redis.call('GET', KEYS[5]) or ''}
    end
    local place = wait_for_thread(KEYS[5], thread, KEYS[7], KEYS[6], ARGV[1], plan == 'interrupt', ARGV[7], now)
    reply = {'waiting', place[1], place[2]}
  end
  if ARGV[11] ~= '' then
    reserve_key(KEYS[8], ARGV[11], ARGV[1], now, ARGV[12])
  end
  if ARGV[13] ~= '' then
    count_run(KEYS[9], ARGV[15])
  end
  thread.flush()
  if plan == 'new' then
    redis.call('PEXPIRE', KEYS[4], ARGV[7])
  end
  local fields = {unpack(ARGV, 18, 17 + n)}
  if reply[1] == 'waiting' then
    fields[#fields + 1] = 'waiting'
    fields[#fields + 1] = '1'
  end
  record_run(KEYS[1], KEYS[2], KEYS[10], ARGV[1], fields, ARGV[4], now, ARGV[3], ARGV[16])
  return reply
end

-- Applies a batch of one run's events, in order: for each, decides whether it belongs to the run and, if so,
-- appends it to the resume buffer and updates the run's state. Atomic; idempotent per seq. The run's state is read
-- once and what the batch decides is written once (hash_writes): a batch costs one read, one write and one XADD per
-- event, however many events it holds. It publishes nothing:
-- it returns the api nodes that watch the run (the creating node, the run hash's 'node', and those that joined
-- later, KEYS[3], looked up only when one did: 'watched'), and the relay publishes what every run of its batch applied
-- in one message per node (io.agentrun.model.live.LiveMessage's format), once the batch's calls have answered, so a
-- threaded run's run_end reaches a node only after the thread's call wrote the history and released the lock.
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
-- publishable key family whose spend the run counts against ('' when none, or when the batch holds no run_end). A
-- failed write fails the call after the decisions it made are written (the batch is read again and those count as
-- applied before; their watchers read them from the buffer).
local function apply_run_events(KEYS, ARGV)
  local FIELDS = 12
  local run = hash_writes(KEYS[1])
  local h = redis.call('HMGET', KEYS[1], 'epoch', 'end_seq', 'status', 'last_seq', 'deleted', 'project_id', 'node',
    'key_family', 'approval_call', 'first_offset', 'watched')
  local s = {epoch = tonumber(h[1] or '0'), end_seq = h[2] and tonumber(h[2]), status = h[3],
    last_seq = h[4] and tonumber(h[4]), deleted = h[5], project_id = h[6], approval_call = h[9], first_offset = h[10]}
  -- The TTLs to set once the batch is applied: the last event that set one decides (a run_end's after a run_start's).
  local expiry = {}

  local function apply(seqText, envelope, kind, partition, offset, createdAt, detail1, detail2, epochText, detail3, detail4)
    local seq = tonumber(seqText)
    local epoch = tonumber(epochText)
    if s.deleted then
      -- its thread was deleted: nothing of the run is kept, not even a late event
      return 3
    end
    if epoch > 0 then
      if epoch < s.epoch then
        return 2
      end
      if epoch > s.epoch then
        -- Only when Redis lost the claim (a rebuild from the topic, say): the events say which epoch is current.
        s.epoch = epoch
        run.set('epoch', epoch)
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
          run.unset('end_seq', 'output', 'output_json', 'error_code', 'error_message', 'ended_at', 'usage')
          run.set('status', 'running', 'last_seq', seq - 1)
          s.end_seq = nil
          s.status = 'running'
          s.last_seq = seq - 1
        end
      end
    end
    if s.end_seq and seq > s.end_seq then
      return 3
    end
    if kind ~= 'run_start' and s.last_seq and seq > s.last_seq + 1 then
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
    local ended = is_terminal(s.status)
    if not s.last_seq or seq > s.last_seq then
      s.last_seq = seq
      run.set('last_seq', seqText)
    end
    if kind == 'run_start' then
      run.set('attempt', detail1, 'start_partition', partition, 'start_offset', offset, 'started_at', createdAt)
      if not s.first_offset then
        -- The first attempt's start is the run's first event: with created_at, its time to first event (in this
        -- hash write, so no command of its own).
        s.first_offset = offset
        run.set('first_offset', offset, 'first_event_at', createdAt)
      end
      if not ended then
        s.status = 'running'
        run.set('status', 'running')
      end
      expiry[KEYS[2]] = {'PEXPIRE', ARGV[3]}
    elseif kind == 'error' then
      run.set('error_code', detail1, 'error_message', detail2)
    elseif kind == 'run_end' then
      run.set('status', detail1, 'output', detail2, 'ended_at', createdAt, 'end_seq', seqText, 'usage', detail3)
      s.status = detail1
      s.end_seq = seq
      if detail4 ~= '' then
        run.set('output_json', detail4)
      end
      if s.approval_call then
        -- (a checkpoint is only ever written with the call it waits on)
        run.unset('checkpoint')
      end
      expiry[KEYS[2]] = {'PEXPIRE', ARGV[2]}
    elseif kind == 'approval_required' then
      -- The run waits for a person: what they decide on (detail2), where the run resumes from (detail3), until when
      -- (detail4, ms). An earlier pause's decision is history now. The run and its buffer are kept past the deadline.
      if not ended then
        if s.approval_call ~= detail1 then
          -- (the worker's park may have recorded this pause first, and a decision on it since: that one stays)
          run.unset('decision', 'decision_reason', 'decided_by', 'decided_at')
        end
        run.set('status', 'waiting', 'approval_call', detail1, 'approval', detail2, 'checkpoint', detail3,
          'approval_deadline', detail4)
        s.status = 'waiting'
        s.approval_call = detail1
        local keep = tonumber(detail4) + tonumber(ARGV[3])
        expiry[KEYS[1]] = {'PEXPIREAT', keep}
        expiry[KEYS[2]] = {'PEXPIREAT', keep}
      end
    elseif kind == 'approval_decided' then
      -- The attempt that resumed the run says what was decided (restored so after a rebuild from the topic).
      if not ended then
        s.status = 'running'
        run.set('status', 'running', 'decision', detail1, 'decision_reason', detail2, 'decided_by', detail3)
      end
    end
    return 1
  end

  local function restoreOwners(createdAt)
    -- The api writes them all with the run, and its retention: the writes only for a run Redis lost.
    if not s.project_id then
      s.project_id = ARGV[4]
      redis.call('HSETNX', KEYS[1], 'project_id', ARGV[4])
      redis.call('HSETNX', KEYS[1], 'agent_id', ARGV[5])
      redis.call('HSETNX', KEYS[1], 'created_at', createdAt)
      if ARGV[6] ~= '' then
        redis.call('HSETNX', KEYS[1], 'thread_id', ARGV[6])
      end
      -- (the api gave the run its retention when it wrote it)
      expiry[KEYS[1]] = {'PEXPIRE', ARGV[3]}
    end
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
  run.flush()
  for key, set in pairs(expiry) do
    redis.call(set[1], key, set[2])
  end
  if failure then
    return redis.error_reply(failure)
  end
  local watchers = {}
  -- Also for a run_end applied before: a threaded run's run_end is published when the thread's call applies it, which
  -- may be at its batch's second reading (the first failed in the thread's write).
  if applied or ended then
    local creator = h[7]
    if creator then
      watchers[1] = creator
    end
    if h[11] then
      for _, node in ipairs(redis.call('SMEMBERS', KEYS[3])) do
        if node ~= creator then
          watchers[#watchers + 1] = node
        end
      end
    end
  end
  local family = ''
  if ended then
    family = h[8] or ''
  end
  return {decisions, watchers, family}
end

-- Several runs' apply_run_events in one call, for a relay on a single primary (one call per batch instead of one per
-- run; in a Redis Cluster the runs' keys are in different slots, and each run has its own call). Each run is applied
-- as apply_run_events applies it, in its own protected call: a run Redis refuses (a key of the wrong type, say) fails
-- alone, as its own call would, and the others' replies still come back (what they applied is published).
-- KEYS: apply_run_events' three keys per run, in order.   ARGV: per run, the count of its arguments, then those.
-- Returns one reply per run: apply_run_events' reply, or 'refused: ' and the error's text for a run Redis refused.
local function apply_runs_events(KEYS, ARGV)
  local replies = {}
  local a = 1
  local k = 0
  while a <= #ARGV do
    local n = tonumber(ARGV[a])
    local argv = {}
    for i = 1, n do
      argv[i] = ARGV[a + i]
    end
    local ok, reply = pcall(apply_run_events, {KEYS[k + 1], KEYS[k + 2], KEYS[k + 3]}, argv)
    if ok and not reply.err then
      replies[#replies + 1] = reply
    else
      -- Raised, or answered as an error reply (redis.error_reply): as its text, a plain string. Redis would answer an
      -- error object inside the array as an error reply, and the client fail the whole call with it.
      replies[#replies + 1] = 'refused: ' .. (type(reply) == 'table' and tostring(reply.err) or tostring(reply))
    end
    a = a + n + 1
    k = k + 3
  end
  return replies
end

-- Applies one run's events of a batch to its thread (run_start, message_final, run_end; in order): history and lock.
-- Atomic and idempotent: a record read again (same Kafka offset; a thread's events are on one partition in order) or
-- an event written again (same run and seq at a later offset) changes nothing. The thread's state is read once and
-- written once (hash_writes); its retention is renewed at a run's end, at most daily ('renewed_at'), and when Redis had
-- lost the thread.
-- KEYS[1] ar:thread:{id}   KEYS[2] ar:thread:{id}:messages   KEYS[3] ar:thread:{id}:lock   KEYS[4] ar:thread:{id}:runs
-- KEYS[5] ar:thread:{id}:deleted (a deleted thread takes nothing more)   KEYS[6] ar:thread:{id}:waiting (runs waiting
-- for the thread: at run_end the lock goes to the first of them instead of being freed)
-- ARGV[1] run id   ARGV[2] Kafka partition (offsets compare only within one; adding partitions moves threads)
-- ARGV[3] thread retention (ms)   ARGV[4] the lock's time to live (ms), for the run it is handed to
-- ARGV[5] the project   ARGV[6] the agent (the thread's owners, for a thread Redis lost)
-- then 8 fields per event, from ARGV[7]: type, Kafka offset, seq, created_at (ISO-8601), created_at (ms: a run_start's
-- place in the runs index if the api has not put it there, a rebuild), run_start: attempt ('0' otherwise),
-- run_start: the user message JSON | message_final: the assistant message JSON, or '' for one rejected,
-- run_start: the thread's metadata JSON (the first run_start of a thread comes first in its partition: its metadata
-- is the thread's)
-- Returns {one flag per event (1 applied | 0 not), the run the lock was handed to or ''}
local function apply_thread_events(KEYS, ARGV)
  local FIELDS = 8
  local runId = ARGV[1]
  local count = (#ARGV - 6) / FIELDS
  local flags = {}
  for i = 1, count do
    flags[i] = 0
  end
  local mark = 'history_len:' .. runId
  local thread = hash_writes(KEYS[1])
  local fields = {'project_id', 'applied_partition', 'applied_offset', 'applied_run', 'applied_seq', 'pending_run', mark,
    'renewed_at', 'history_count', 'active_run', 'has_waiting'}
  for i = 1, count do
    if ARGV[7 + (i - 1) * FIELDS] == 'message_final' then
      fields[#fields + 1] = 'pending_user' -- (a question the answer goes after: read only with an answer)
      break
    end
  end
  local h = redis.call('HMGET', KEYS[1], unpack(fields))
  -- A deleted thread's hash is gone (delete_thread), and only a run_start of a thread Redis lost writes its owners
  -- again: a thread whose hash names its project was not deleted, and the tombstone is looked at only when it does not.
  if not h[1] and redis.call('EXISTS', KEYS[5]) == 1 then
    return {flags, ''}
  end
  local s = {project_id = h[1], partition = h[2], offset = tonumber(h[3] or '-1'), run = h[4], seq = tonumber(h[5] or '-1'),
    pending_run = h[6], history_len = h[7] and tonumber(h[7])}
  local pending_user = h[12] -- the run's question the answer goes after: its run_start's, in this call or before
  local renew = false
  local pushedNew = false
  local handed = ''
  for i = 1, count do
    local a = 7 + (i - 1) * FIELDS
    local kind, offset, seq, createdAt = ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), ARGV[a + 3]
    if kind == 'run_start' and not s.project_id then
      -- Who owns the thread, as the api wrote it (never overwritten): a thread Redis lost (a failover, a rebuild from
      -- the topic) is found by its project again.
      s.project_id = ARGV[5]
      redis.call('HSETNX', KEYS[1], 'project_id', ARGV[5])
      redis.call('HSETNX', KEYS[1], 'agent_id', ARGV[6])
      redis.call('HSETNX', KEYS[1], 'created_at', createdAt)
      redis.call('HSETNX', KEYS[1], 'metadata', ARGV[a + 7])
      renew = true
    end
    local skip = (s.partition == ARGV[2] and offset <= s.offset) or (s.run == runId and seq <= s.seq)
    if not skip and kind ~= 'run_start' and s.run ~= runId and s.pending_run ~= runId and not s.history_len then
      -- The thread holds no trace of this run's run_start (it sets pending_run and the history_len mark): a Redis failover
      -- dropped it after acknowledging it, and this later event came first. Applied now, it would store the answer without
      -- its question and move the thread past the run_start, which the relays' replay would then skip as applied before.
      -- Left alone, the replay applies the run's events again in order.
      skip = true
    end
    if not skip then
      flags[i] = 1
      s.partition, s.offset, s.run, s.seq = ARGV[2], offset, runId, seq
      thread.set('applied_partition', ARGV[2], 'applied_offset', ARGV[a + 1], 'applied_run', runId, 'applied_seq', ARGV[a + 2],
        'updated_at', createdAt)
      if kind == 'run_start' then
        -- Where the history stood before this run; a later attempt starts over from there, so what an earlier
        -- attempt already stored (a message_final before the worker died) is not kept twice.
        -- ('history_count' follows the history's length as this function changes it; a thread written before it
        -- was kept, or restored, asks the list)
        if not s.history_len then
          s.history_len = h[9] and tonumber(h[9]) or redis.call('LLEN', KEYS[2])
          thread.set(mark, s.history_len)
        end
        if tonumber(ARGV[a + 5]) > 1 then
          if s.history_len == 0 then
            redis.call('DEL', KEYS[2])
          else
            redis.call('LTRIM', KEYS[2], 0, s.history_len - 1)
          end
          h[9] = tostring(s.history_len)
          thread.set('history_count', s.history_len)
        end
        redis.call('ZADD', KEYS[4], 'NX', ARGV[a + 4], runId)
        -- Held until the run answers: a run that fails says nothing and leaves no dangling question.
        s.pending_run = runId
        pending_user = ARGV[a + 6]
        thread.set('pending_run', runId, 'pending_user', pending_user)
      elseif kind == 'message_final' and ARGV[a + 6] ~= '' then
        -- An empty message is an answer rejected for its shape: the model was asked again; nothing is kept.
        local messages = {}
        if s.pending_run == runId and pending_user then
          messages[1] = pending_user
          pending_user = nil
          thread.unset('pending_user')
        end
        messages[#messages + 1] = ARGV[a + 6]
        local length = redis.call('RPUSH', KEYS[2], unpack(messages))
        h[9] = tostring(length)
        thread.set('history_count', length)
        if length == #messages then
          pushedNew = true -- a history that starts now: it needs its retention
        end
      elseif kind == 'run_end' then
        s.pending_run = nil
        s.history_len = nil
        pending_user = nil
        thread.unset('pending_run', 'pending_user', mark)
        -- The thread's retention restarts at a run's end, at most once in a thirtieth of it (a day of 30): a busy
        -- thread does not pay three commands a turn for it, and it is kept 29 to 30 days after its last run.
        local ended = tonumber(ARGV[a + 4])
        if not h[8] or ended - tonumber(h[8]) >= tonumber(ARGV[3]) / 30 then
          thread.set('renewed_at', ended)
          renew = true
        end
        -- History is written above, before the lock goes: the next turn always sees this one. 'active_run' names the
        -- lock's holder (every transition that moves the lock writes it); the lock itself is asked only when it does not.
        local holder = h[10] or redis.call('GET', KEYS[3])
        if holder == runId then
          -- The next waiting run takes the thread now; the relay (or, should it fail first, a sweeper) starts it.
          handed = hand_thread_to_next(KEYS[3], thread, KEYS[6], ARGV[4], h[11])
        end
      end
    end
  end
  thread.flush()
  if renew then
    redis.call('PEXPIRE', KEYS[1], ARGV[3])
    redis.call('PEXPIRE', KEYS[2], ARGV[3])
    redis.call('PEXPIRE', KEYS[4], ARGV[3])
  elseif pushedNew then
    redis.call('PEXPIRE', KEYS[2], ARGV[3])
  end
  return {flags, handed}
end
-- Adds a finished run's tokens to its publishable key family's spend of the day, once per run: a run_end
-- the relay applies again (after a crash, or a rebuild) is not counted twice.
-- KEYS[1] the day's spend hash, KEYS[2] the day's set of counted runs; ARGV[1] run id, ARGV[2] tokens,
-- ARGV[3] TTL seconds. Returns 1 when counted, 0 when it was counted before.
local function count_spend(KEYS, ARGV)
  if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then
    return 0
  end
  redis.call('HINCRBY', KEYS[1], 'tokens', ARGV[2])
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  redis.call('EXPIRE', KEYS[2], ARGV[3])
  return 1
end
-- Lets go of a thread's lock only when ARGV[1] still holds it, so a late release never frees another run's lock; the
-- first waiting run, if any, takes it (ARGV[2]: its time to live). Also with ARGV[1] = '' to hand a lock that expired
-- (or was never handed on) to the first waiting run.
-- KEYS[1] ar:thread:{id}:lock   KEYS[2] ar:thread:{id}   KEYS[3] ar:thread:{id}:waiting
-- Returns the run the lock went to, '' when it was freed, nil when ARGV[1] did not hold it.
local function release_thread(KEYS, ARGV)
  local holder = redis.call('GET', KEYS[1])
  if holder ~= ARGV[1] and not (ARGV[1] == '' and not holder) then
    return nil
  end
  local thread = hash_writes(KEYS[2])
  local handed = hand_thread_to_next(KEYS[1], thread, KEYS[3], ARGV[2], nil)
  thread.flush()
  return handed
end

-- Takes the thread for ARGV[1] when it is free, else puts the run in the thread's waiting list (at its head when
-- ARGV[5] is 'front'). The run is listed in the thread's runs either way.
-- KEYS[1] ar:thread:{id}:lock   KEYS[2] ar:thread:{id}   KEYS[3] ar:thread:{id}:waiting   KEYS[4] ar:thread:{id}:runs
-- ARGV[1] run id   ARGV[2] lock TTL (ms)   ARGV[3] now (ms)   ARGV[4] thread retention (ms)   ARGV[5] 'front' or ''
-- Returns {0, ''} when the run took the lock, else {its place (1 = next), the holder}.
local function lock_or_wait(KEYS, ARGV)
  local thread = hash_writes(KEYS[2])
  local reply = {0, ''}
  if not take_thread(KEYS[1], thread, KEYS[4], ARGV[1], ARGV[2], ARGV[4], ARGV[3]) then
    reply = wait_for_thread(KEYS[1], thread, KEYS[3], KEYS[4], ARGV[1], ARGV[5] == 'front', ARGV[4], ARGV[3])
  end
  thread.flush()
  return reply
end

-- Extends a thread's lock while ARGV[1] holds it. KEYS[1] ar:thread:{id}:lock   ARGV[2] time to live (ms).
-- Returns 1 when extended, 0 when another run (or none) holds it.
local function extend_thread_lock(KEYS, ARGV)
  if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[2])
  end
  return 0
end

-- A thread's deletion: a tombstone (ARGV[1], the ThreadDeleted JSON, for ARGV[2] ms) and its hash, history, lock,
-- runs index and waiting list go. KEYS[1] ar:thread:{id}   KEYS[2] …:messages   KEYS[3] …:lock   KEYS[4] …:runs
-- KEYS[5] …:deleted   KEYS[6] …:waiting. Returns the runs the index held (delete_run takes each).
local function delete_thread(KEYS, ARGV)
  redis.call('SET', KEYS[5], ARGV[1], 'PX', ARGV[2])
  local runs = redis.call('ZRANGE', KEYS[4], 0, -1)
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[6])
  return runs
end

-- A run of a deleted thread: its resume buffer and every field that holds content go (input, output and its JSON,
-- error text, usage, a waiting run's checkpoint, the call it waits on, a decision's reason); a run not ended (waiting
-- included) ends cancelled (thread_deleted); 'deleted' says what happened, so late events and claims find nothing to do.
-- KEYS[1] ar:run:{id}   KEYS[2] ar:run:{id}:events. Returns 1, or 0 when the run is unknown.
local function delete_run(KEYS, ARGV)
  redis.call('DEL', KEYS[2])
  if redis.call('EXISTS', KEYS[1]) == 0 then
    return 0
  end
  local status = redis.call('HGET', KEYS[1], 'status')
  redis.call('HDEL', KEYS[1], 'output', 'output_json', 'command', 'error_message', 'usage', 'checkpoint', 'approval',
    'decision_reason')
  if not is_terminal(status) then
    -- Ended here, as a sweeper ends a run: nobody holds it any more, so its worker's park, hand-back or finish find it
    -- not theirs (and cannot write an end over this one); its late events are ignored ('deleted').
    let_go(KEYS[1], 'status', 'cancelled', 'error_code', 'thread_deleted', 'deleted', '1')
  else
    redis.call('HSET', KEYS[1], 'deleted', '1')
  end
  return 1
end

-- An api node joins a run's watchers (a client that reads a run it did not start): the relay publishes the run's events
-- to it too. 'watched' on the run tells the relay to look the watchers up; most runs have none but their creator.
-- KEYS[1] ar:run:{id}   KEYS[2] ar:run:{id}:watchers   ARGV[1] node id   ARGV[2] how long the watchers are kept (ms)
local function watch_run(KEYS, ARGV)
  -- (a run Redis does not know, yet or any more, gets the mark for as long as the watchers are kept: its events may
  -- still come, from a worker or a rebuild, and restore the rest)
  local known = redis.call('EXISTS', KEYS[1]) == 1
  redis.call('HSET', KEYS[1], 'watched', '1')
  if not known then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
  end
  redis.call('SADD', KEYS[2], ARGV[1])
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  return 1
end

-- This library's version: a service checks it answers before it calls the rest.
local function version(KEYS, ARGV)
  return VERSION
end

local function register(name, callback, flags)
  redis.register_function{function_name = name .. '_' .. VERSION, callback = callback, flags = flags or {}}
end

register('claim_run', claim_run)
register('renew_lease', renew_lease)
register('release_run', release_run)
register('park_run', park_run)
register('sweep_run', sweep_run)
register('refuse_run', refuse_run)
register('confirm_sent', confirm_sent)
register('promote_run', promote_run)
register('decide_approval', decide_approval)
register('lock_thread', lock_thread)
register('start_run', start_run)
register('index_project_run', index_project_run)
register('reserve_idempotency', reserve_idempotency)
register('take_over_idempotency', take_over_idempotency)
register('release_idempotency', release_idempotency)
register('charge_run', charge_run)
register('release_thread', release_thread)
register('lock_or_wait', lock_or_wait)
register('extend_thread_lock', extend_thread_lock)
register('apply_run_events', apply_run_events)
register('apply_runs_events', apply_runs_events)
register('apply_thread_events', apply_thread_events)
register('count_spend', count_spend)
register('watch_run', watch_run)
register('delete_thread', delete_thread)
register('delete_run', delete_run)
register('version', version, {'no-writes'})
