"""``GET /v1/health``: is the service up, and is what it needs (Redis) answering?

200 ``{"status": "ok", "redis": "ok"}``, or 503 in the one error shape with
``details`` naming what is down.  It answers within the Redis client's short
timeout, so a load balancer can rely on it.
"""

from __future__ import annotations

from typing import Any

import redis
from flask import Blueprint

from service.errors import ApiError

bp = Blueprint("health", __name__, url_prefix="/v1")


@bp.get("/health")
def health() -> Any:
    from service.matches import get_store

    try:
        get_store().ping()
    except redis.RedisError as e:
        reason = "timeout" if isinstance(e, redis.TimeoutError) else "down"
        raise ApiError(503, "unavailable", "Redis is not answering.", {"redis": reason}) from None
    return {"status": "ok", "redis": "ok"}
