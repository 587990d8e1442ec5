"""Rate limits (flask-limiter), per client address and per seat token.

``RATE_LIMIT`` sets them in flask-limiter's syntax (``50/second``,
``1000/minute;50/second``); unset, nothing is limited.  Two budgets of that
size apply to every route but ``/v1/health`` (load balancers ask it) and
CORS preflights: one per client address (``REMOTE_ADDR``: behind a proxy, the
proxy's), and one per bearer token (a seat's token on the match endpoints,
the umpire token when creating matches), so a seat cannot flood from many
addresses, nor one address starve the others.  The token is kept only as
part of its SHA-256.

The counts live in Redis (``REDIS_URL``, under ``REDIS_PREFIX``), so every
app process and host shares them; an app with no ``REDIS_URL`` (the embedded
Redis is started lazily, on the first match) counts in its own memory.  When
Redis fails, limits fall back to each process's memory rather than refusing
requests.

Suggestions (``POST /v1/games/{game}/suggest``, service/suggest.py) cost a
search of up to ``SUGGEST_MAX_BUDGET_S`` of CPU each, so they have a budget
of their own besides: ``SUGGEST_RATE_LIMIT`` per client address
(``30/minute`` by default; empty: none), on the suggest blueprint.

A request over a limit is ``429 rate_limited`` in the one error shape, with
``Retry-After`` (seconds) and ``details.limit`` naming the limit.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Flask, request
from flask_limiter import ApplicationLimit, Limiter

EXEMPT_PATHS = ("/v1/health",)


def address() -> str:
    return f"addr:{request.remote_addr or '-'}"


def bearer_token() -> str | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def token_key() -> str:
    token = bearer_token() or ""
    return "token:" + hashlib.sha256(token.encode()).hexdigest()[:32]


def _exempt() -> bool:
    return request.method == "OPTIONS" or request.path in EXEMPT_PATHS


def _no_token() -> bool:
    return _exempt() or bearer_token() is None


def storage_uri(redis_url: str | None, cluster: bool = False) -> str:
    """The limits library's address of the app's Redis: ``unix://`` is
    ``redis+unix://`` there, and a cluster's node (``REDIS_CLUSTER=1``) is
    ``redis+cluster://host:port``, so that the counts go to the key's own node
    (a plain client would be answered MOVED, and the limit fall back to each
    process's memory)."""
    if not redis_url:
        return "memory://"
    if redis_url.startswith("unix://"):
        return "redis+unix://" + redis_url.removeprefix("unix://")
    if cluster:
        rest = redis_url.partition("://")[2]
        return "redis+cluster://" + rest.split("/", 1)[0]  # a cluster has no database number
    return redis_url


def _storage_options(app: Flask) -> Any:
    """The Redis client's timeout, as the app's own (a float: the limits library's annotation says str or int)."""
    url = app.config.get("REDIS_URL")
    if not url:
        return {}
    options: dict[str, Any] = {"socket_timeout": float(app.config.get("REDIS_TIMEOUT_S", 1.0))}
    if app.config.get("REDIS_CLUSTER") and url.startswith("rediss://"):
        options["ssl"] = True  # TLS to every node
    return options


def init_app(app: Flask) -> Limiter | None:
    rate = app.config.get("RATE_LIMIT")
    searches = app.config.get("SUGGEST_RATE_LIMIT")
    if not rate and not searches:
        return None
    everything: list[str | Callable[[], str] | ApplicationLimit] = []
    if rate:
        everything += [
            ApplicationLimit(rate, key_function=address, exempt_when=_exempt, scope="address"),
            ApplicationLimit(rate, key_function=token_key, exempt_when=_no_token, scope="token"),
        ]
    limiter = Limiter(
        address,
        app=app,
        application_limits=everything,
        storage_uri=storage_uri(app.config.get("REDIS_URL"), bool(app.config.get("REDIS_CLUSTER"))),
        storage_options=_storage_options(app),
        key_prefix=f"{app.config.get('REDIS_PREFIX', 'umpire:')}ratelimit",
        strategy="fixed-window",
        headers_enabled=True,
        swallow_errors=True,
        in_memory_fallback_enabled=True,
    )
    searching = app.blueprints.get("suggest")
    if searches and isinstance(searching, Blueprint):  # service/suggest.py's route
        limiter.limit(searches, key_func=address, exempt_when=_exempt, scope="suggest")(searching)
    app.extensions["umpire.limiter"] = limiter
    return limiter
