-- Read a managed match in one command: its revision, fixed and live parts, the
-- answers remembered under the fields asked for, and the server's clock (the one
-- clock of every match, RULES R-T1).  One script instead of a pipeline of three
-- commands: the same single round trip, less work for the client.
-- KEYS[1] match hash   KEYS[2] answers hash   ARGV the answer fields wanted
-- Returns {rev, meta, live, seconds, microseconds, answer...} (false for what is missing).
local out = redis.call('HMGET', KEYS[1], 'rev', 'meta', 'live')
local now = redis.call('TIME')
out[4], out[5] = now[1], now[2]
for i = 1, #ARGV do
  out[5 + i] = redis.call('HGET', KEYS[2], ARGV[i])
end
return out
