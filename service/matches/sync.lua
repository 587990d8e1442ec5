-- A write whose only purpose is to be acknowledged (Store.confirm): it goes into the
-- master's replication stream after every earlier write, so a replica's WAIT
-- acknowledgement of it covers them all.  KEYS[1] the shard's sync key, ARGV[1] any value.
redis.call('SET', KEYS[1], ARGV[1], 'PX', 60000)
return 1
