"""Managed matches, on Redis.  Where a reader finds each concern:

A match and its record
    match         a match's two stored parts: Meta (fixed) and Live (state, clocks)
    record        the typed record entry (Entry) and the record walked by the engine (walk)
    transcript    the record as text and as the list ``replay`` takes
    jsontext      the JSON text stored, hashed and answered

Deciding, committing, describing (a change's path: decide -> commit -> describe -> answer)
    referee       the decisions: a move judged, a resignation, an abort, a flag, an umpire's control, a take-back
    cas           a match read with its due flags applied, and the compare-and-set loop
    changes       every change: decided in the loop, committed, described once (described), answered (change)
    description   a committed change described once (Description), for every channel
    answers       the HTTP channel: a match as answered, a change's answer, legal moves

The operations (decide_*: plain functions of the match read and explicit arguments, which the views
and the Discord adapter, service/discord/umpire.py, call alike) and the views (blueprints, each
registered in create_app)
    routes        the match: create (the operation and its view), read (or wait), list, a seat's link checked
    moves         a seat's operations (decide_move, decide_resign) and their views; the record (paged)
    controls      the umpire's operations (decide_start, decide_pause... decide_takeback, co-umpire links) and views
    events        the event stream, and the feed by which a process follows a match for its listeners
    pictures      a match's pictures and posts (on service/api/pictures.py's blueprint)
    health        GET /v1/health
    webhooks      posts to a match's webhooks (with outbox: the deliverer's Redis side)
    access        tokens: a seat's, the umpire's, the admin's
    query         reading a request: query flags and numbers, the Idempotency-Key, a deferred body
    failures      the store's failures as error answers, in one place

The store (db gives each app its own)
    db            settings, the Store, the hub, the positions cache
    store         reads, the atomic commit, deadlines, listing, per-master work (*.lua)
    keys          shards and the names of the keys
    lua           running the scripts (and WAIT, for durability)
    redisclient   the Redis client, made to fail fast
    errors        what the store raises
    hub           one pub/sub connection per process, waking the feeds
    history       a match's positions at any ply (pictures, posts)
    sweeper       flags on time with nobody asking (``flask sweep``)
"""
