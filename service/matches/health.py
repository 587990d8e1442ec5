"""``GET /v1/health``: is the service up, and can it do what a move needs?

200 ``{"status": "ok", "redis": "ok"}`` when every master answers (all at
once, each asked ``INFO replication``), is a master, has a replica when
``REDIS_DURABILITY=replica`` asks for one, and runs the match scripts (on a
Redis Cluster, with the cluster's state ``ok``).  503 in the one error shape
otherwise, with ``details`` naming what is wrong: on one Redis ``down``,
``timeout``, ``no_replica``; on a cluster, when some masters fail,
``degraded`` with ``shards`` (the match shards, 0-255, that cannot take a
change now) and ``masters`` (each master's state); ``cluster_state``;
``misconfigured`` with the reason (a cluster reached without
``REDIS_CLUSTER=1``, or the other way round).  It answers within the Redis
client's timeout, so a load balancer can rely on it.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import redis
from flask import Blueprint, current_app

from service.matches.db import get_store
from service.matches.failures import A_CLUSTER, NOT_ANSWERING
from service.matches.redisclient import cluster_state
from service.matches.store import SHARDS, Store
from service.web.errors import ApiError

bp = Blueprint("health", __name__, url_prefix="/v1")


def master_state(client: Any, durability: str) -> str:
    """``ok``, ``down``, ``timeout``, ``not_master`` (the layout changed: a failover), or
    ``no_replica`` (durability asks for one and none is connected)."""
    try:
        info = client.info("replication")
    except redis.TimeoutError:
        return "timeout"
    except redis.RedisError:
        return "down"
    if info.get("role") != "master":
        return "not_master"
    if durability != "none" and int(info.get("connected_slaves", 0)) < 1:
        return "no_replica"
    return "ok"


def masters_states(store: Store) -> dict[str, tuple[str, list[int]]]:
    """Every master's state and shards, asked at once; on a cluster, when one fails, the layout
    is read again (a replica may have taken over) and the masters asked once more."""
    states: dict[str, tuple[str, list[int]]] = {}
    for attempt in range(2):
        masters = store.masters()
        with ThreadPoolExecutor(max_workers=max(1, len(masters))) as pool:
            found = pool.map(lambda m: master_state(m[0], store.durability), masters.values())
            states = {name: (state, m[1]) for (name, m), state in zip(masters.items(), found, strict=True)}
        if attempt or not store.cluster or all(state == "ok" for state, _ in states.values()):
            break
        try:
            store.refresh()
        except (redis.RedisError, redis.exceptions.RedisClusterException):
            break
    return states


@bp.get("/health")
def health() -> Any:
    store = get_store()  # a Redis failure anywhere here is answered by service/matches/failures.py
    states = masters_states(store)
    bad = {name: state for name, (state, _) in states.items() if state != "ok"}
    if bad and not store.cluster:
        state = next(iter(bad.values()))
        message = "Redis has no replica connected." if state == "no_replica" else NOT_ANSWERING
        raise ApiError("unavailable", message, {"redis": state})
    if bad:
        held = {shard for _, shards in states.values() for shard in shards}
        shards = sorted({s for name in bad for s in states[name][1]} | (set(range(SHARDS)) - held))
        raise ApiError(
            "unavailable",
            f"{len(bad)} of {len(states)} Redis masters cannot take changes: {len(shards)} of {SHARDS} shards.",
            {"redis": "degraded", "shards": shards, "masters": {name: state for name, (state, _) in states.items()}},
        )
    store.check_scripts()
    if current_app.config["REDIS_CLUSTER"]:
        if cluster_state(store.r.cluster_info()) != "ok":
            raise ApiError("unavailable", "The Redis Cluster's state is not ok.", {"redis": "cluster_state"})
    elif store.r.info("cluster").get("cluster_enabled"):
        raise ApiError("unavailable", A_CLUSTER, {"redis": "misconfigured"})
    return {"status": "ok", "redis": "ok"}
