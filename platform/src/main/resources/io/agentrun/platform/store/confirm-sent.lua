-- An api node confirms a run's command (Kafka acknowledged it) although its own lease may have lapsed meanwhile: a
-- sweeper may have found the node dead and be ending the run. Decides once, on the run's hash.
-- KEYS[1] ar:run:{id}
-- Returns 1 = confirmed ('sent' set; no sweeper ends it as abandoned from now on), or the hash is gone (nothing to
-- mark: the command is the record); 0 = a sweeper abandoned it: the node refuses it to its client.
if redis.call('HGET', KEYS[1], 'abandoned') == '1' then
  return 0
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'sent', '1')
end
return 1
