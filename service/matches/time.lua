-- The server's clock, read on the node that holds KEYS[1] (a match's hash), so
-- that a match's every time comes from one clock, on a Redis Cluster too.
local now = redis.call('TIME')
return {now[1], now[2]}
