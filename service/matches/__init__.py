"""Managed matches: the routes (routes), the referee that judges a request against
the record (referee), the Redis store and its scripts (store, *.lua), the event
stream (events) and the process's hub that wakes waiters (hub), the record's
readings (history), the sweeper that flags expired clocks (sweeper), the store's
settings (db) and the health check (health)."""
