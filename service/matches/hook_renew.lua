-- Keep a webhook's lease while its try runs (service/matches/deliverer.py renews
-- each lease it holds every second; a lease lasts a few): a deliverer that dies
-- stops renewing, and the next one takes the webhook over within seconds.
-- KEYS[1] the match's outbox hash
-- ARGV[1] webhook i   ARGV[2] cursor   ARGV[3] owner   ARGV[4] lease, ms
-- Returns 1, or 0 when the caller no longer holds it (lapsed and taken, or the cursor moved).
local i = ARGV[1]
local lease = redis.call('HGET', KEYS[1], 'lease:' .. i)
if not lease or string.sub(lease, 1, #ARGV[3] + 1) ~= ARGV[3] .. ' ' then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'c:' .. i) or '0') ~= tonumber(ARGV[2]) then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], 'lease:' .. i, ARGV[3] .. ' ' .. (now + tonumber(ARGV[4])))
return 1
