-- A serving process's beat on shards of one master, crediting first any outage it finds there
-- (RULES R-T3; service/matches/liveness.py explains the beats).
--
-- Every process that serves matches (app workers and sweepers) runs this about once a second
-- for every shard; a request runs it for its match's shard when it reads a beat older than the
-- outage threshold.  For each shard: a beat older than the threshold means that nobody served the
-- shard since (its master was down or out of reach, or no serving process ran), so every turn
-- running there is given that time back first: its start, and with it its deadline, moves later
-- by now - max(beat, the turn's start) (a turn that began after the beat lost only its own part
-- of the outage).  Then the beat becomes now.  The check and the credit are one script, so an
-- outage is credited once, by whichever process comes first; a beat is never moved back.
--
-- KEYS[2i-1] shard i's deadlines   KEYS[2i] shard i's beat
-- ARGV[1] now (ms), or "" for this server's TIME   ARGV[2] the outage threshold (ms)
-- ARGV[3] the channel prefix   ARGV[3+i] shard i's key tag ("{P}{sXX}")
-- Returns, for each shard credited, three numbers: i - 1, the beat's age (ms), the turns credited.
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local outage = tonumber(ARGV[2])
local out = {}
for i = 1, #KEYS / 2 do
  local deadlines, beat_key, tag = KEYS[2 * i - 1], KEYS[2 * i], ARGV[3 + i]
  local seen = redis.call('GET', beat_key)
  local beat = seen and tonumber(string.match(seen, '^%d+'))  -- an older form was "ms:r"
  if not beat or now > beat then
    if beat and now - beat > outage then
      local running = redis.call('ZRANGE', deadlines, 0, -1, 'WITHSCORES')
      local n = 0
      for j = 1, #running, 2 do
        local id, deadline = running[j], tonumber(running[j + 1])
        local key = tag .. ':m:' .. id
        local live = redis.call('HGET', key, 'live')
        -- the clock is the live part's last object: its turn_start is the text's last one
        local head, start, tail = string.match(live or '', '^(.*"turn_start":)(%d+)(.*)$')
        if start then
          local credit = now - math.max(beat, tonumber(start))
          if credit > 0 then
            local rev = redis.call('HINCRBY', key, 'rev', 1)
            redis.call('HSET', key, 'live', head .. string.format('%.0f', tonumber(start) + credit) .. tail)
            redis.call('ZADD', deadlines, string.format('%.0f', deadline + credit), id)
            redis.call('PUBLISH', ARGV[3] .. id, rev)
            n = n + 1
          end
        end
      end
      out[#out + 1] = i - 1
      out[#out + 1] = now - beat
      out[#out + 1] = n
    end
    redis.call('SET', beat_key, string.format('%.0f', now))
  end
end
return out
