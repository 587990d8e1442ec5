"""503 for the match store's failures (registered in create_app)."""

from __future__ import annotations

import logging

import redis
from flask import Response
from redis.exceptions import ClusterDownError

from service.matches.changes import unconfirmed
from service.matches.store import NoReplicas, Unconfirmed
from service.web.errors import api_error, error_response
from service.web.metrics import REDIS_ERRORS

log = logging.getLogger(__name__)


def redis_unavailable(err: redis.RedisError) -> Response:
    """503 for a Redis failure (registered in create_app): misconfigured, no replica, down or timed out."""
    from service.matches.health import misconfiguration

    why = misconfiguration(err)
    if why is not None:
        return error_response("unavailable", why, {"redis": "misconfigured"})
    if isinstance(err, NoReplicas):  # min-replicas-to-write: the master refused the change, nothing applied
        log.warning("Redis refused a write for want of replicas: %s", err)
        REDIS_ERRORS.labels("no_replica").inc()
        message = "The match store (Redis) has no replica to keep the change on; nothing changed. Try again shortly."
        return error_response("unavailable", message, {"redis": "no_replica"})
    if isinstance(err, ClusterDownError):  # an outage of the cluster (a master failed), not a fault of ours
        log.warning("Redis Cluster is down: %s", err)
    elif not isinstance(err, redis.ConnectionError | redis.TimeoutError):
        log.exception("Redis refused a command")
    reason = "timeout" if isinstance(err, redis.TimeoutError) else "down"
    REDIS_ERRORS.labels(reason).inc()
    return error_response("unavailable", "The match store (Redis) is not answering; try again shortly.", {"redis": reason})


def unconfirmed_change(err: Unconfirmed) -> Response:
    """A change made on the way (a flag applied by a read) whose commit was not confirmed (registered in create_app)."""
    found = unconfirmed(err, "a change to the match")
    return api_error(found)
