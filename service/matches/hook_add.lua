-- Keep a new match's webhooks (service/matches/outbox.py) and index the match
-- for the deliverers.  Both keys are under the match's shard hash tag.
-- KEYS[1] the match's outbox hash   KEYS[2] the shard's index of matches to post for
-- ARGV[1] the webhooks (JSON)       ARGV[2] match id   ARGV[3] expiry, s
-- ARGV[4] "0" when the match was created over (its record will stay empty), else ""
redis.call('HSET', KEYS[1], 'list', ARGV[1])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'end', ARGV[4]) end
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('SADD', KEYS[2], ARGV[2])
return 1
