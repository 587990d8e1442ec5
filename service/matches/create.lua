-- Create a managed match, unless its id is taken (ids are random: a clash is
-- only ever a bug, but it must never overwrite a match).  Every key is under
-- the match's shard hash tag, so a Redis Cluster runs this on one node.
-- KEYS[1] match hash   KEYS[2] the shard's deadlines   KEYS[3] the shard's ongoing index
-- KEYS[4] the shard's finished index
-- ARGV[1] meta JSON    ARGV[2] live JSON    ARGV[3] match id
-- ARGV[4] deadline in ms, or "" when nobody is on the clock
-- ARGV[5] created, ms   ARGV[6] "1" when created finished (a set-up position that is over)
-- ARGV[7] expiry once finished, s   ARGV[8] expiry while idle, s (refreshed by every change)
-- Returns 1 when created, 0 when the id was taken.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'rev', 0, 'meta', ARGV[1], 'live', ARGV[2])
if ARGV[4] ~= '' then redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3]) end
if ARGV[6] == '1' then
  redis.call('ZADD', KEYS[4], ARGV[5], ARGV[3])
  redis.call('EXPIRE', KEYS[1], ARGV[7])
else
  redis.call('ZADD', KEYS[3], ARGV[5], ARGV[3])
  redis.call('EXPIRE', KEYS[1], ARGV[8])
end
return 1
