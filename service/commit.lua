-- Commit one change to a managed match, all or nothing (DESIGN.md "the atomic move").
-- The app has already read the match at revision ARGV[1], run the engine and the
-- clock in Python, and built everything below; this script only checks that
-- nobody changed the match meanwhile (compare-and-set on the revision) and then
-- writes it all: new live state and clock, record entries, remembered answers,
-- the deadline in the sweepers' sorted set, expiry once finished, a wake-up
-- for waiting readers.
--
-- KEYS[1] match hash (rev, meta, live)   KEYS[2] record list
-- KEYS[3] answers hash                    KEYS[4] deadlines sorted set
-- ARGV[1] expected rev      ARGV[2] new live JSON     ARGV[3] match id
-- ARGV[4] deadline in ms, or "" when nobody is on the clock
-- ARGV[5] expiry in seconds once finished, or "" while ongoing
-- ARGV[6] channel to publish the new rev on
-- ARGV[7] n, the number of record entries; ARGV[8 .. 7+n] the entries
-- ARGV[8+n ..] answers to remember, as field, value pairs
-- Returns the new rev, 0 when the rev did not match, -1 when the match is gone.
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return -1 end
if rev ~= ARGV[1] then return 0 end
local new = tonumber(rev) + 1
redis.call('HSET', KEYS[1], 'rev', new, 'live', ARGV[2])
local n = tonumber(ARGV[7])
if n > 0 then redis.call('RPUSH', KEYS[2], unpack(ARGV, 8, 7 + n)) end
for i = 8 + n, #ARGV, 2 do redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
if ARGV[4] == '' then
  redis.call('ZREM', KEYS[4], ARGV[3])
else
  redis.call('ZADD', KEYS[4], ARGV[4], ARGV[3])
end
if ARGV[5] ~= '' then
  for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[5]) end
end
redis.call('PUBLISH', ARGV[6], new)
return new
