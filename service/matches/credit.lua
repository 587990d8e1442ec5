-- Credit an outage to every running clock of one shard (RULES R-T3; service/matches/sweeper.py).
-- The sweepers mark each shard they watch (its beat: the time of their last look); a shard
-- whose beat is older than the outage threshold was out of the service's reach for that long,
-- so every turn running there is given that time back: its start (and with it the deadline)
-- moves later by the gap.  Once per gap: only while the beat is still the one the caller saw.
-- KEYS[1] the shard's deadlines   KEYS[2] the shard's beat
-- ARGV[1] the beat seen   ARGV[2] now (ms)   ARGV[3] the shard's key tag ("{P}{sXX}")   ARGV[4] the channel prefix
-- ARGV[5] "" (a sweeper credits) or ":r" (a request does: the new beat says so)
-- Returns the number of matches credited, or -1 when the beat changed meanwhile.
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return -1 end
local credit = tonumber(ARGV[2]) - tonumber((string.gsub(ARGV[1], ':r$', '')))
local running = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local n = 0
for i = 1, #running, 2 do
  local id, deadline = running[i], tonumber(running[i + 1])
  local key = ARGV[3] .. ':m:' .. id
  local live = redis.call('HGET', key, 'live')
  if live then
    local moved = string.gsub(live, '"turn_start":(%d+)', function(ts)
      return '"turn_start":' .. string.format('%.0f', tonumber(ts) + credit)
    end)
    local rev = redis.call('HINCRBY', key, 'rev', 1)
    redis.call('HSET', key, 'live', moved)
    redis.call('ZADD', KEYS[1], string.format('%.0f', deadline + credit), id)
    redis.call('PUBLISH', ARGV[4] .. id, rev)
    n = n + 1
  end
end
redis.call('SET', KEYS[2], ARGV[2] .. ARGV[5], 'EX', 86400)
return n
