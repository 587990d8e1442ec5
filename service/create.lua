-- Create a managed match, unless its id is taken (ids are random: a clash is
-- only ever a bug, but it must never overwrite a match).
-- KEYS[1] match hash   KEYS[2] deadlines sorted set
-- ARGV[1] meta JSON    ARGV[2] live JSON    ARGV[3] match id
-- ARGV[4] deadline in ms, or "" when nobody is on the clock
-- ARGV[5] expiry in seconds when created finished, or ""
-- Returns 1 when created, 0 when the id was taken.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'rev', 0, 'meta', ARGV[1], 'live', ARGV[2])
if ARGV[4] ~= '' then redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3]) end
if ARGV[5] ~= '' then redis.call('EXPIRE', KEYS[1], ARGV[5]) end
return 1
