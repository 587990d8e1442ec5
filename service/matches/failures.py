"""The one place where the match store's failures become error answers.

create_app registers :func:`answer` once for each of :data:`FAILURES`, and no
view catches them to answer on its own: a match that is not there
(:class:`~service.matches.errors.Gone`, 404 ``match_not_found``), a write
Redis did not confirm (:class:`~service.matches.errors.Unconfirmed`, 503
``outcome_unknown``: sending it again is safe), and any other Redis failure
(503 ``unavailable``, ``details.redis`` saying which: ``misconfigured``,
``no_replica``, ``timeout``, ``down``).  The statuses are ERROR_CODES'
(service/web/errors.py).  Each failure answered 503 is counted
(``umpire_redis_errors_total{reason}``); a command Redis refused (a fault of
ours) is logged with its traceback, an outage of a cluster and an unconfirmed
write as one warning line.
"""

from __future__ import annotations

import logging

import redis
from flask import Response
from redis.exceptions import AskError, ClusterDownError, MovedError

from service.matches.errors import Gone, NoReplicas, Unconfirmed
from service.web.errors import ApiError, api_error
from service.web.metrics import REDIS_ERRORS

log = logging.getLogger(__name__)

FAILURES: tuple[type[Exception], ...] = (Gone, Unconfirmed, redis.RedisError)

NOT_A_CLUSTER = (
    "REDIS_CLUSTER=1 is set but Redis at REDIS_URL is not a cluster (or is a unix socket, which the cluster client "
    "cannot use): unset REDIS_CLUSTER."
)
A_CLUSTER = "Redis at REDIS_URL is a cluster: set REDIS_CLUSTER=1 so that the cluster client is used."
NOT_ANSWERING = "The match store (Redis) is not answering; try again shortly."
AGAIN = (
    "Send the same request again, with the same ply and Idempotency-Key, which is safe: if it was applied, the retry "
    "gets the first answer (once a replica has it), else it is applied now."
)


def misconfiguration(err: BaseException) -> str | None:
    """The sentence for a Redis error that means the setting is wrong, not the server."""
    text = str(err).lower()
    if isinstance(err, MovedError | AskError) or "crossslot" in text:
        return A_CLUSTER
    if "cluster support disabled" in text or "cluster mode is not enabled" in text or "unix domain socket" in text:
        return NOT_A_CLUSTER
    return None


def error_of(err: Exception) -> ApiError:
    """The error answer for one of :data:`FAILURES`."""
    if isinstance(err, Gone):
        return ApiError("match_not_found", f"There is no match '{err.match_id}' (never created, or expired).")
    if isinstance(err, Unconfirmed):
        REDIS_ERRORS.labels("outcome_unknown").inc()
        log.warning("Redis did not confirm %s (%s): %s", err.what, err.reason, err)
        if err.reason == "no_replica":
            why = (
                f"The match store (Redis) applied {err.what} but no replica confirmed it in time: it may be lost if Redis"
                " fails now."
            )
        else:
            why = f"Redis did not confirm {err.what}: it may or may not have been applied."
        return ApiError("outcome_unknown", f"{why} {err.again or AGAIN}", {"retry": True})
    wrong = misconfiguration(err)
    if wrong is not None:
        return ApiError("unavailable", wrong, {"redis": "misconfigured"})
    if isinstance(err, NoReplicas):  # min-replicas-to-write: the master refused the change, nothing applied
        log.warning("Redis refused a write for want of replicas: %s", err)
        REDIS_ERRORS.labels("no_replica").inc()
        message = "The match store (Redis) has no replica to keep the change on; nothing changed. Try again shortly."
        return ApiError("unavailable", message, {"redis": "no_replica"})
    if isinstance(err, ClusterDownError):  # an outage of the cluster (a master failed), not a fault of ours
        log.warning("Redis Cluster is down: %s", err)
    elif not isinstance(err, redis.ConnectionError | redis.TimeoutError):
        log.exception("Redis refused a command")
    reason = "timeout" if isinstance(err, redis.TimeoutError) else "down"
    REDIS_ERRORS.labels(reason).inc()
    return ApiError("unavailable", NOT_ANSWERING, {"redis": reason})


def answer(err: Exception) -> Response:
    """The answer to a failure of the match store (create_app registers it for each of :data:`FAILURES`)."""
    return api_error(error_of(err))
