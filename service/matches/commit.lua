-- Commit one change to a managed match, all or nothing (docs/DESIGN.md "The atomic move").
-- The app has already read the match at revision ARGV[1], run the engine and the
-- clock in Python, and built everything below; this script only checks that
-- nobody changed the match meanwhile (compare-and-set on the revision) and then
-- writes it all: the new live state and clock, the record entries, the
-- Idempotency-Key's pointer, the deadline in the shard's sorted set, the
-- indexes, expiry, and a wake-up for whoever waits on the match.  Every key is
-- under the match's shard hash tag: one slot, so a Redis Cluster runs it whole.
--
-- KEYS[1] match hash (rev, meta, live)   KEYS[2] record list   KEYS[3] idempotency hash
-- KEYS[4] the shard's deadlines          KEYS[5] ongoing index KEYS[6] finished index
-- KEYS[7] the match's webhooks' outbox   KEYS[8] the shard's matches with posts to make
-- ARGV[1] expected rev      ARGV[2] new live JSON     ARGV[3] match id
-- ARGV[4] deadline in ms, or "" when nobody is on the clock
-- ARGV[5] when this change finished the match (ms), or "" while it goes on, or "reopen:<created ms>"
--         when it reopened a finished match (the umpire took back the move that ended it): the match
--         is ongoing again, listed so, and its webhooks post again
-- ARGV[6] expiry once finished, s    ARGV[7] expiry while idle, s (refreshed by every change)
-- ARGV[8] channel to publish the new rev on
-- ARGV[9] the match's new meta JSON (an umpire reissued a seat's token), or "" when it stays
-- ARGV[10] n, the number of record entries; ARGV[11 .. 10+n] the entries
-- ARGV[11+n ..] Idempotency-Key pointers to remember, as field, value pairs
-- Returns the new rev, 0 when the rev did not match, -1 when the match is gone.
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return -1 end
if rev ~= ARGV[1] then return 0 end
local new = tonumber(rev) + 1
redis.call('HSET', KEYS[1], 'rev', new, 'live', ARGV[2])
if ARGV[9] ~= '' then redis.call('HSET', KEYS[1], 'meta', ARGV[9]) end
local n = tonumber(ARGV[10])
if n > 0 then redis.call('RPUSH', KEYS[2], unpack(ARGV, 11, 10 + n)) end
if ARGV[4] == '' then
  redis.call('ZREM', KEYS[4], ARGV[3])
else
  redis.call('ZADD', KEYS[4], ARGV[4], ARGV[3])
end
local reopened = string.match(ARGV[5], '^reopen:(%d+)$')
if reopened then
  redis.call('ZREM', KEYS[6], ARGV[3])
  redis.call('ZADD', KEYS[5], reopened, ARGV[3])
  if redis.call('EXISTS', KEYS[7]) == 1 then
    redis.call('HDEL', KEYS[7], 'end')
    redis.call('SADD', KEYS[8], ARGV[3])
  end
end
-- The retry pointers stay as long as the record: a key's retry after the end still gets its first
-- answer (a take-back's or time given's is known by its key alone).  At most one per committed change.
for i = 11 + n, #ARGV, 2 do redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
if ARGV[5] ~= '' and not reopened then
  redis.call('ZREM', KEYS[5], ARGV[3])
  redis.call('ZADD', KEYS[6], ARGV[5], ARGV[3])
  for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[6]) end
else
  for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[7]) end
end
redis.call('PUBLISH', ARGV[8], new)
return new
