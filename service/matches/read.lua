-- Read a managed match in one command: its revision, fixed and live parts, the
-- record's length, where an Idempotency-Key points (when one is asked for), and
-- the server's clock (the one clock of every match, RULES R-T1; on a Redis
-- Cluster the clock of the node that holds the match, so always the same one).
-- KEYS[1] match hash   KEYS[2] record list   KEYS[3] idempotency hash   ARGV[1] the key, or ""
-- KEYS[4] the shard's beat (the sweepers' last look at the shard: RULES R-T3)
-- Returns {rev, meta, live, seconds, microseconds, record length, pointer, beat} (false for what is missing).
local out = redis.call('HMGET', KEYS[1], 'rev', 'meta', 'live')
local now = redis.call('TIME')
out[4], out[5] = now[1], now[2]
out[6] = redis.call('LLEN', KEYS[2])
if ARGV[1] ~= '' then out[7] = redis.call('HGET', KEYS[3], ARGV[1]) else out[7] = false end
out[8] = redis.call('GET', KEYS[4])
return out
