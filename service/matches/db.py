"""The match store's setup, apart from the blueprints (as the Flask tutorial
keeps ``db.py``): configuration from the environment, the Redis client (one
server or a Redis Cluster), the :class:`Store`, the per-process :class:`Hub`
that wakes waiting requests, and the cache of engine positions.

Layers, top to bottom (nothing imports upwards): the views (``routes``, ``moves``,
``controls``, ``events``, ``pictures``, ``health``) and ``sweeper`` -> ``db`` -> ``hub``,
``store`` -> ``engine``.  The embedded Redis (service/run/embedded.py, a layer above)
is given to :func:`init_app` by create_app, not imported here.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import redis
from flask import Flask

from service.matches.hub import Hub
from service.matches.redisclient import make_client
from service.matches.store import DURABILITY, Store
from service.web import metrics
from service.web.appref import this_app

CONFIG_DEFAULTS: dict[str, Any] = {
    "REDIS_URL": None,  # unset: the embedded Redis on DATA_DIR
    "REDIS_CLUSTER": False,  # REDIS_CLUSTER=1: REDIS_URL names any node of a Redis Cluster
    "REDIS_PREFIX": "umpire:",
    "REDIS_TIMEOUT_S": 2.0,  # an answer from Redis; past it a request gets 503
    "REDIS_CONNECT_TIMEOUT_S": 2.0,
    "REDIS_POOL_SIZE": 64,  # connections per process
    "REDIS_DURABILITY": "none",  # replica: a change is answered 2xx only once a replica has it (docs/DURABILITY.md)
    "REDIS_DURABILITY_TIMEOUT_S": 1.0,  # the longest wait for that replica; then 503 outcome_unknown
    "DATA_DIR": "data",
    "MATCH_TTL_S": 30 * 86400,  # finished matches are kept this long
    "MATCH_IDLE_TTL_S": 30 * 86400,  # an ongoing match nobody has changed for this long expires
    "UMPIRE_TOKEN": None,  # when set, creating a match needs it
    "ADMIN_TOKEN": None,  # when set, listing and aborting matches need it (unset: both are off)
    "SWEEP_INTERVAL_S": 0.2,  # the longest a sweeper sleeps before looking for new deadlines
    "BEAT_S": 1.0,  # every serving process beats every shard this often (service/matches/liveness.py)
    "OUTAGE_S": 3.0,  # a shard not beaten for longer was not served: its running clocks get the time back (R-T3)
    "EVENTS_HEARTBEAT_S": 15.0,  # a comment line on every event stream this often
    "EVENTS_LIFETIME_S": 300.0,  # an event stream ends after this; clients reconnect with Last-Event-ID
    "MATCH_CLOCK": None,  # tests: a callable giving "now" in ms instead of Redis TIME
}
ENV_TYPES: dict[str, Any] = {
    "REDIS_TIMEOUT_S": float,
    "REDIS_CONNECT_TIMEOUT_S": float,
    "REDIS_POOL_SIZE": int,
    "REDIS_DURABILITY_TIMEOUT_S": float,
    "MATCH_TTL_S": int,
    "MATCH_IDLE_TTL_S": int,
    "SWEEP_INTERVAL_S": float,
    "BEAT_S": float,
    "OUTAGE_S": float,
    "EVENTS_HEARTBEAT_S": float,
    "EVENTS_LIFETIME_S": float,
    "REDIS_CLUSTER": lambda raw: raw.strip().lower() in ("1", "true", "yes", "on"),
}


StartRedis = Callable[[str], str]  # a data folder -> the URL of a Redis started (or found running) on it


def init_app(app: Flask, start_redis: StartRedis | None = None) -> None:
    """Configuration (from the environment unless the app's config says otherwise).  ``start_redis``
    gives the Redis of ``DATA_DIR`` when ``REDIS_URL`` is unset (service/run/embedded.py's, which
    create_app passes: the running of the service is the layer above this one)."""
    for key, default in CONFIG_DEFAULTS.items():
        if key in app.config:
            continue
        raw = os.environ.get(key)
        if raw is None or raw == "":
            app.config[key] = default
            continue
        try:
            app.config[key] = ENV_TYPES.get(key, str)(raw)
        except ValueError:
            raise ValueError(f"{key}={raw!r} is not a valid setting") from None
    durability = str(app.config["REDIS_DURABILITY"]).strip().lower()
    if durability not in DURABILITY:
        raise ValueError(f"REDIS_DURABILITY must be one of {', '.join(DURABILITY)}, not {durability!r}")
    wait_s = float(app.config["REDIS_DURABILITY_TIMEOUT_S"])
    if durability != "none" and not 0 < wait_s < float(app.config["REDIS_TIMEOUT_S"]):
        raise ValueError("REDIS_DURABILITY_TIMEOUT_S must be more than 0 and less than REDIS_TIMEOUT_S")
    beat_s, outage_s = float(app.config["BEAT_S"]), float(app.config["OUTAGE_S"])
    if not (beat_s >= 0 and outage_s > 0 and outage_s >= 2 * beat_s):
        raise ValueError("OUTAGE_S must be more than 0 and at least twice BEAT_S (0 or more): a late beat is no outage")
    app.extensions["umpire.store"] = None
    app.extensions["umpire.hub"] = None
    app.extensions["umpire.liveness"] = None
    app.extensions["umpire.store.lock"] = threading.Lock()
    app.extensions["umpire.positions"] = Positions()
    app.extensions["umpire.start_redis"] = start_redis


def _app(app: Flask | None) -> Flask:
    found: Flask = app or this_app()
    return found


def get_store(app: Flask | None = None) -> Store:
    """The app's store, made on first use (so an app that never touches a
    match never needs Redis).  With no ``REDIS_URL`` the embedded server on
    ``DATA_DIR`` is started, or found running, here."""
    app = _app(app)
    store: Store | None = app.extensions["umpire.store"]
    if store is not None:
        return store
    with app.extensions["umpire.store.lock"]:
        store = app.extensions["umpire.store"]
        if store is None:
            cfg = app.config
            url = cfg["REDIS_URL"]
            if not url:
                start: StartRedis | None = app.extensions["umpire.start_redis"]
                if start is None:
                    raise redis.ConnectionError("REDIS_URL is not set and this app starts no Redis of its own")
                try:
                    url = start(str(cfg["DATA_DIR"]))
                except (OSError, RuntimeError) as e:
                    raise redis.ConnectionError(f"the embedded Redis did not start: {e}") from e
            try:
                client = make_client(
                    url,
                    float(cfg["REDIS_TIMEOUT_S"]),
                    cluster=bool(cfg["REDIS_CLUSTER"]),
                    connect_timeout_s=float(cfg["REDIS_CONNECT_TIMEOUT_S"]),
                    pool_size=int(cfg["REDIS_POOL_SIZE"]),
                )
            except redis.exceptions.RedisClusterException as e:  # the cluster client could not find a cluster
                raise redis.ConnectionError(str(e)) from e
            store = Store(
                client, cfg["REDIS_PREFIX"], int(cfg["MATCH_TTL_S"]), cfg["MATCH_CLOCK"], int(cfg["MATCH_IDLE_TTL_S"]),
                metrics.redis_time, str(cfg["REDIS_DURABILITY"]).strip().lower(),
                round(float(cfg["REDIS_DURABILITY_TIMEOUT_S"]) * 1000), round(float(cfg["OUTAGE_S"]) * 1000),
            )  # fmt: skip
            app.extensions["umpire.store"] = store
    return store


def get_hub(app: Flask | None = None) -> Hub:
    """The process's hub (one pub/sub connection for every waiting request)."""
    app = _app(app)
    hub: Hub | None = app.extensions["umpire.hub"]
    if hub is None:
        store = get_store(app)
        with app.extensions["umpire.store.lock"]:
            hub = app.extensions["umpire.hub"]
            if hub is None:
                cfg = app.config  # the caps are service/web/guard.py's settings
                hub = Hub(store, int(cfg.get("MAX_LISTENERS_PER_MATCH") or 0), int(cfg.get("MAX_LISTENERS_PER_ADDRESS") or 0))
                app.extensions["umpire.hub"] = hub
    return hub


def close(app: Flask) -> None:
    """Stop the hub and the beats, and close the store's connections (tests, and
    anything that makes apps and throws them away)."""
    keeper = app.extensions.get("umpire.liveness")  # service/matches/liveness.py, a layer above
    if keeper is not None:
        keeper.stop()
        app.extensions["umpire.liveness"] = None
    hub: Hub | None = app.extensions.get("umpire.hub")
    if hub is not None:
        hub.stop()
        app.extensions["umpire.hub"] = None
    store: Store | None = app.extensions.get("umpire.store")
    if store is not None:
        store.r.close()
        app.extensions["umpire.store"] = None
    for name in ("umpire.renderers", "umpire.searchers"):  # the PNG renderers' and the bots' searches' processes
        pool = app.extensions.pop(name, None)
        if pool is not None:
            pool.close()


class Positions:
    """Engine states of the matches this process moved last, by match id and
    revision, so that the next move of a match, when it comes to the same
    process, starts from the state object instead of loading its JSON again.

    Only states the engine itself produced are kept (the ``verdict.state`` of
    an accepted move, committed at that revision), so nothing is trusted that
    was not validated; a state read from Redis and not found here is loaded
    and checked as usual, and a client's state never comes near this."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self._states: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, match_id: str, rev: str) -> Any:
        with self._lock:
            return self._states.get((match_id, rev))

    def put(self, match_id: str, rev: str, state: Any) -> None:
        with self._lock:
            self._states[(match_id, rev)] = state
            if len(self._states) > self.size:
                self._states.popitem(last=False)  # the oldest: a match moves on, its earlier revisions are never read again


def get_positions(app: Flask | None = None) -> Positions:
    found: Positions = _app(app).extensions["umpire.positions"]
    return found
