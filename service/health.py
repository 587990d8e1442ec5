"""``GET /v1/health``: is the service up, and can it do what a move needs?

200 ``{"status": "ok", "redis": "ok"}`` when Redis answers and runs the
match scripts on the node that holds a match (on a Redis Cluster: through the
cluster client, with the cluster's state ``ok``); 503 in the one error shape
otherwise, with ``details`` naming what is wrong - ``down``, ``timeout``, or
``misconfigured`` with the reason (a cluster reached without
``REDIS_CLUSTER=1``, or the other way round).  It answers within the Redis
client's timeout, so a load balancer can rely on it.
"""

from __future__ import annotations

from typing import Any

import redis
from flask import Blueprint, current_app

from service.db import get_store
from service.embedded import cluster_state
from service.errors import ApiError

bp = Blueprint("health", __name__, url_prefix="/v1")


NOT_A_CLUSTER = (
    "REDIS_CLUSTER=1 is set but Redis at REDIS_URL is not a cluster (or is a unix socket, which the cluster client "
    "cannot use): unset REDIS_CLUSTER."
)
A_CLUSTER = "Redis at REDIS_URL is a cluster: set REDIS_CLUSTER=1 so that the cluster client is used."


def misconfiguration(err: BaseException) -> str | None:
    """The sentence for a Redis error that means the setting is wrong, not the server."""
    text = str(err).lower()
    if isinstance(err, redis.exceptions.MovedError | redis.exceptions.AskError) or "crossslot" in text:
        return A_CLUSTER
    if "cluster support disabled" in text or "cluster mode is not enabled" in text or "unix domain socket" in text:
        return NOT_A_CLUSTER
    return None


@bp.get("/health")
def health() -> Any:
    try:
        store = get_store()
        store.ping()
        store.check_scripts()
        if current_app.config["REDIS_CLUSTER"]:
            if cluster_state(store.r.cluster_info()) != "ok":
                raise ApiError(503, "unavailable", "The Redis Cluster's state is not ok.", {"redis": "cluster_state"})
        elif store.r.info("cluster").get("cluster_enabled"):
            raise ApiError(503, "unavailable", A_CLUSTER, {"redis": "misconfigured"})
    except redis.RedisError as e:
        why = misconfiguration(e)
        if why is not None:
            raise ApiError(503, "unavailable", why, {"redis": "misconfigured"}) from None
        reason = "timeout" if isinstance(e, redis.TimeoutError) else "down"
        raise ApiError(503, "unavailable", "Redis is not answering.", {"redis": reason}) from None
    return {"status": "ok", "redis": "ok"}
