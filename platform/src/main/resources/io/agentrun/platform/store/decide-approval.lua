-- Records a person's decision on a tool call a run waits for, exactly once.
-- KEYS[1] ar:run:{id}
-- ARGV[1] project id   ARGV[2] thread id   ARGV[3] tool call id   ARGV[4] decision (approve | deny)   ARGV[5] reason
-- ARGV[6] who decided   ARGV[7] now (ms)   ARGV[8] now (ISO-8601)
-- Returns {outcome, detail}: 'recorded' (detail: the run's command JSON, to produce now), 'recorded_before' (this very
-- decision by this caller, recorded already), 'not_found' (no such run in
-- this project and thread), 'no_call' (the run waits for no decision on that call), 'decided' (detail: the decision
-- recorded before), 'ended' (detail: the run's status; a run ended undecided), 'expired' (the deadline passed: the sweeper denies it).
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
  return {'decided', h[5]}
end
local status = h[3]
if status == 'completed' or status == 'failed' or status == 'cancelled' or status == 'timed_out' then
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
