-- End a claimed try of a webhook (service/matches/outbox.py), if the caller
-- still holds its lease: 'ok' moves the cursor on past the entries the post
-- covered, 'retry' sets when the next try may start, 'fail' gives them up and
-- moves on, 'skip' moves on past entries the webhook does not post (counted
-- neither posted nor given up).  A failure is kept (the webhook's last error, and the match's list
-- of latest failures).
-- KEYS[1] the match's outbox hash   KEYS[2] the match's failures list
-- ARGV[1] webhook i   ARGV[2] cursor   ARGV[3] owner   ARGV[4] ok | retry | fail | skip
-- ARGV[5] wait before the next try, ms   ARGV[6] the failure (JSON) or ""
-- ARGV[7] failures kept   ARGV[8] expiry, s   ARGV[9] entries the post covered
-- ARGV[10] "1" when the post was of refused attempts (its time is kept: ``rp:i``)
-- Returns 1, or 0 when the lease was lost (another deliverer took it over).
local i = ARGV[1]
local lease = redis.call('HGET', KEYS[1], 'lease:' .. i)
if not lease or string.sub(lease, 1, #ARGV[3] + 1) ~= ARGV[3] .. ' ' then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'c:' .. i) or '0') ~= tonumber(ARGV[2]) then return 0 end
redis.call('HDEL', KEYS[1], 'lease:' .. i)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if ARGV[4] == 'retry' then
  redis.call('HSET', KEYS[1], 'due:' .. i, now + tonumber(ARGV[5]))
else
  local n = tonumber(ARGV[9])
  redis.call('HSET', KEYS[1], 'c:' .. i, tonumber(ARGV[2]) + n, 'a:' .. i, 0, 'due:' .. i, 0)
  redis.call('HDEL', KEYS[1], 'n:' .. i)
  if ARGV[4] ~= 'skip' then redis.call('HINCRBY', KEYS[1], (ARGV[4] == 'ok' and 'ok:' or 'bad:') .. i, n) end
  if ARGV[10] == '1' then redis.call('HSET', KEYS[1], 'rp:' .. i, now) end
end
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[1], 'err:' .. i, ARGV[6])
  redis.call('LPUSH', KEYS[2], ARGV[6])
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[7]) - 1)
end
redis.call('EXPIRE', KEYS[1], ARGV[8])
redis.call('EXPIRE', KEYS[2], ARGV[8])
return 1
