"""The Redis client of the match store, made to fail fast (service/matches/db.py makes one per app).

Failures: the client has timeouts and retries a broken connection once (a
stale pooled socket after Redis restarted; on a cluster, up to three times,
and a cluster that is down too), not a timeout (but for pipelines on a
cluster: :class:`FailFastCluster`); anything else surfaces as a
``redis.RedisError``, which the app answers with 503 (service/matches/failures.py).
"""

from __future__ import annotations

from typing import Any

import redis
from redis._parsers import _HiredisParser
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.retry import Retry

AnyRedis = Any  # redis.Redis or redis.RedisCluster: the same commands, and no common type in the stubs

# ClosedMeanwhileParser below subclasses redis-py's private ``_HiredisParser``, read for these versions only
# (its ``read_from_socket``, ``read_response``, ``_sock`` and ``_reader``: the same from 7.2.0 to 7.4.1), and
# pyproject.toml pins redis-py to exactly this one.  redis-py 8.1.0 fixes the race itself (redis/redis-py#4136,
# "raise ConnectionError instead of AttributeError on concurrent disconnect"); flask-limiter's limits[redis]
# holds redis-py below 8.  When it allows 8.1, drop the subclass and the pin.  On any other version the
# subclass is not used (:func:`parser_class`): redis-py's own parser reads, internals untouched.
WORKAROUND_FOR = ("7.4.1",)
CLOSED = "Connection closed by server."  # redis-py's own words for a connection closed under a read


class FailFastCluster(redis.RedisCluster):  # type: ignore[type-arg]  # generic in the stubs only
    """redis-py's cluster client, but a timeout is not retried: by default it is, three times
    (after reading the cluster's layout again), so a stuck master held each request on it for
    four timeouts and more instead of the one a single Redis takes to answer 503.  A broken
    connection, a cluster that is down and a slot not covered are still retried (a master
    restarted, a slot moved), as ``retry`` says.  (Pipelines, which only the admin listing
    and the sweepers use, keep redis-py's own list, timeouts included.)"""

    ERRORS_ALLOW_RETRY = tuple(e for e in redis.RedisCluster.ERRORS_ALLOW_RETRY if e is not redis.TimeoutError)


class ClosedMeanwhileParser(_HiredisParser):
    """redis-py's hiredis reply parser, but a connection closed by another thread or greenlet while this one
    read from it (a cluster client re-reading the layout after a failover, or a pool disconnecting) is a
    ``ConnectionError``, retried as any broken connection is, not an ``AttributeError`` (its reader and socket
    were set to None under it) that answered ``500``: redis-py 8.1 does the same (redis/redis-py#4136), but
    flask-limiter's ``limits[redis]`` holds redis-py below 8 (a CI run's cluster test met the race)."""

    def read_from_socket(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().read_from_socket(*args, **kwargs)  # type: ignore[no-untyped-call]
        except AttributeError:
            if self._sock is None or self._reader is None:  # on_disconnect ran meanwhile
                raise RedisConnectionError(CLOSED) from None
            raise

    def read_response(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().read_response(*args, **kwargs)  # type: ignore[no-untyped-call]
        except AttributeError:
            if self._reader is None:
                raise RedisConnectionError(CLOSED) from None
            raise


def parser_class() -> type[_HiredisParser] | None:
    """:class:`ClosedMeanwhileParser` on the redis-py it was written for (:data:`WORKAROUND_FOR`), else None:
    redis-py's own choice."""
    return ClosedMeanwhileParser if redis.__version__ in WORKAROUND_FOR else None


class _ReadsWithClosedMeanwhileParser:
    """A connection that reads its replies with :func:`parser_class`'s (``connection_class`` is what the
    cluster client passes on to every node's pool; ``parser_class`` it would drop)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        chosen = parser_class()
        if chosen is not None:
            kwargs.setdefault("parser_class", chosen)
        super().__init__(*args, **kwargs)


class Connection(_ReadsWithClosedMeanwhileParser, redis.Connection):
    pass


class UnixConnection(_ReadsWithClosedMeanwhileParser, redis.UnixDomainSocketConnection):
    pass


class SSLConnection(_ReadsWithClosedMeanwhileParser, redis.SSLConnection):
    pass


def connection_class(url: str) -> type[redis.connection.AbstractConnection]:
    """The connection a URL's scheme takes (``redis://``, ``unix://``, ``rediss://``), reading as above."""
    scheme = url.partition("://")[0].lower()
    return UnixConnection if scheme == "unix" else SSLConnection if scheme == "rediss" else Connection


def make_client(
    url: str, timeout_s: float, *, cluster: bool = False, connect_timeout_s: float | None = None, pool_size: int = 64
) -> AnyRedis:
    """A client that fails fast: ``timeout_s`` to answer, ``connect_timeout_s``
    to connect, one retry on a broken connection, none on a timeout (a slow
    Redis is a 503).  ``cluster``: redis-py's cluster client, ``url`` naming
    any node (it finds the others).

    At most ``pool_size`` connections per process (per node on a cluster); a
    request that finds them all busy waits for one (a blocking pool), up to
    ``timeout_s``, rather than failing: a thousand waiting listeners that wake
    together queue for a connection."""
    connect = timeout_s if connect_timeout_s is None else connect_timeout_s
    if cluster:
        return FailFastCluster.from_url(
            url,
            socket_timeout=timeout_s,
            socket_connect_timeout=connect,
            retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 3),
            decode_responses=True,
            max_connections=pool_size,
            connection_pool_class=redis.BlockingConnectionPool,
            connection_class=connection_class(url),
            require_full_coverage=False,  # a failed master's slots may be unserved: the others' still are
        )
    pool = redis.BlockingConnectionPool.from_url(
        url,
        max_connections=pool_size,
        timeout=timeout_s,
        socket_timeout=timeout_s,
        socket_connect_timeout=connect,
        retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
        decode_responses=True,
        connection_class=connection_class(url),
    )
    return redis.Redis(connection_pool=pool)


def node_name(client: redis.Redis) -> str:  # type: ignore[type-arg]
    """``host:port`` (or the socket's path) of a plain client's server."""
    kw = client.connection_pool.connection_kwargs
    return str(kw.get("path") or f"{kw.get('host')}:{kw.get('port')}")


def cluster_state(info: object) -> str | None:
    """``cluster_state`` from CLUSTER INFO, as redis-py gives it (a dict, or the raw text)."""
    if isinstance(info, dict):
        state = info.get("cluster_state")
        return None if state is None else str(state)
    for line in str(info).splitlines():
        key, _, value = line.strip().partition(":")
        if key == "cluster_state":
            return value
    return None
