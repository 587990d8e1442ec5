-- Take a webhook's lease to post from one record entry (service/matches/outbox.py):
-- only when that entry is the webhook's next (its cursor), no other deliverer
-- holds a live lease, and its next try is due.  So two deliverers never post
-- the same entry to the same webhook at once.  Time is this Redis server's.
-- A post covers ARGV[5] entries (more than one: a run of refused attempts);
-- once tried, its retries cover the same entries (``n:i``), so a receiver
-- sees the same X-Umpire-Delivery for the same post.
-- KEYS[1] the match's outbox hash
-- ARGV[1] webhook i   ARGV[2] the entry (cursor) to post   ARGV[3] owner   ARGV[4] lease, ms
-- ARGV[5] the entries the post covers
-- Returns {the try's number (1, 2, ...), entries}, or {0, entries} when it is not to be
-- posted now (entries: those a try of it fixed already, else 0).
local i = ARGV[1]
if redis.call('HEXISTS', KEYS[1], 'list') == 0 then return {0, 0} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local c = tonumber(redis.call('HGET', KEYS[1], 'c:' .. i) or '0')
if c ~= tonumber(ARGV[2]) then return {0, 0} end
local n = tonumber(redis.call('HGET', KEYS[1], 'n:' .. i) or '0')
if n > 0 and n ~= tonumber(ARGV[5]) then return {0, n} end
local lease = redis.call('HGET', KEYS[1], 'lease:' .. i)
if lease then
  local till = tonumber(string.match(lease, ' (%d+)$'))
  if till and till > now then return {0, n} end
end
local due = tonumber(redis.call('HGET', KEYS[1], 'due:' .. i) or '0')
if due > now then return {0, n} end
redis.call('HSET', KEYS[1], 'lease:' .. i, ARGV[3] .. ' ' .. (now + tonumber(ARGV[4])), 'n:' .. i, ARGV[5])
return {redis.call('HINCRBY', KEYS[1], 'a:' .. i, 1), tonumber(ARGV[5])}
