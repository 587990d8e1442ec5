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

Two kinds of request cost more than the rest and get a budget of their own
per client address, on by default (an operator would not expect anyone to be
able to create matches or draw pictures without bound): creating a match
(``CREATE_RATE_LIMIT``, default :data:`CREATE_DEFAULT`: every match is kept in
Redis for a month) and drawing a picture (``RENDER_RATE_LIMIT``, default
:data:`RENDER_DEFAULT`: ``render`` and a match's ``board.svg``/``board.png``).
``off`` turns either off.  They apply beside ``RATE_LIMIT``; a request with
the server's umpire token (``UMPIRE_TOKEN``) creates matches at any pace.
Suggestions (``POST /v1/games/{game}/suggest``, service/api/suggest.py) cost a
search of up to ``SUGGEST_MAX_BUDGET_S`` of CPU each, so they have a budget
of their own too: ``SUGGEST_RATE_LIMIT`` (``30/minute`` by default).

A request over a limit is ``429 rate_limited`` in the one error shape, with
``Retry-After`` (seconds) and ``details.limit`` naming the limit.  Only a
``429`` or a ``503`` carries ``Retry-After`` (flask-limiter would put one on
every answer under a limit).

How: ``RATE_LIMIT`` is flask-limiter's, as documented (``application_limits``
with their ``exempt_when``): its hooks run on every request, which is what
an app-wide limit is.  The budgets of a few views are the ``limits``
library's ``FixedWindowRateLimiter.hit`` (:class:`Budget`), called by those
views alone (:func:`budgeted` wraps each at start), so that no other request
pays for them; their answers carry ``X-RateLimit-Limit``,
``X-RateLimit-Remaining`` and ``X-RateLimit-Reset`` as flask-limiter's do
(with ``RATE_LIMIT`` on, flask-limiter's describe ``RATE_LIMIT``).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import math
import time
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask, after_this_request, current_app, request
from flask_limiter import ApplicationLimit, Limiter
from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage, storage_from_string
from limits.strategies import FixedWindowRateLimiter
from werkzeug.wrappers import Response

from service.web.errors import ApiError

EXEMPT_PATHS = ("/v1/health",)
OFF = "off"
CREATE_DEFAULT = "600/minute"  # ten a second on average, in bursts: a tournament harness's pace, not a flood's
RENDER_DEFAULT = "20/second;600/minute"  # a person stepping through a game draws a few a second
# The views each budget covers, by endpoint.
CREATE_ENDPOINTS = ("matches.create_match",)
RENDER_ENDPOINTS = ("pictures.render", "pictures.match_svg", "pictures.match_png")
SUGGEST_ENDPOINTS = ("suggest.suggest",)
RETRY_STATUSES = (429, 503)


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


def _umpire() -> bool:
    """The server's umpire token is trusted to create matches at any pace (a tournament harness)."""
    umpire = current_app.config.get("UMPIRE_TOKEN")
    token = bearer_token()
    return _exempt() or bool(umpire and token and hmac.compare_digest(token.encode(), str(umpire).encode()))


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


def _budget(app: Flask, name: str) -> str | None:
    raw = app.config.get(name)
    return None if not raw or str(raw).strip().lower() == OFF else str(raw)


def init_app(app: Flask) -> Limiter | None:
    """``RATE_LIMIT`` through flask-limiter (None when it is unset), and each view's budget around it."""
    limiter = None
    rate = _budget(app, "RATE_LIMIT")
    if rate:
        limits: list[str | Callable[[], str] | ApplicationLimit] = [
            ApplicationLimit(rate, key_function=address, exempt_when=_exempt, scope="address"),
            ApplicationLimit(rate, key_function=token_key, exempt_when=_no_token, scope="token"),
        ]
        limiter = Limiter(
            address,
            app=app,
            application_limits=limits,
            storage_uri=storage_uri(app.config.get("REDIS_URL"), bool(app.config.get("REDIS_CLUSTER"))),
            storage_options=_storage_options(app),
            key_prefix=f"{app.config.get('REDIS_PREFIX', 'umpire:')}ratelimit",
            strategy="fixed-window",
            headers_enabled=True,
            swallow_errors=True,
            in_memory_fallback_enabled=True,
        )
        app.extensions["umpire.limiter"] = limiter
        app.wsgi_app = RetryAfterOnlyOnRefusals(app.wsgi_app)  # type: ignore[method-assign]
    for name, endpoints in (
        ("CREATE_RATE_LIMIT", CREATE_ENDPOINTS),
        ("RENDER_RATE_LIMIT", RENDER_ENDPOINTS),
        ("SUGGEST_RATE_LIMIT", SUGGEST_ENDPOINTS),
    ):
        budget = _budget(app, name)
        if not budget:
            continue
        scope = name.removesuffix("_RATE_LIMIT").lower()
        counter = Budget(budget, _where(app, f"ratelimit:{scope}"), headers=limiter is None)
        for endpoint in endpoints:
            exempt = _umpire if endpoint in CREATE_ENDPOINTS else None
            app.view_functions[endpoint] = budgeted(app.view_functions[endpoint], counter, exempt)
    return limiter


class RetryAfterOnlyOnRefusals:
    """WSGI middleware (with ``RATE_LIMIT`` on): flask-limiter writes ``Retry-After`` on every answer whose limits
    it checked; only a ``429`` or a ``503`` keeps it."""

    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            if int(status[:3]) not in RETRY_STATUSES:
                headers[:] = [(k, v) for k, v in headers if k.lower() != "retry-after"]
            return start_response(status, headers, exc_info)

        return self.app(environ, start)


def budgeted(view: Callable[..., Any], budget: Budget, exempt: Callable[[], bool] | None) -> Callable[..., Any]:
    """``view`` charging ``budget`` for its client's address first (unless ``exempt()``): 429 over it."""

    @functools.wraps(view)
    def charged(*args: Any, **kwargs: Any) -> Any:
        if exempt is None or not exempt():
            budget.charge(address())
        return view(*args, **kwargs)

    return charged


Where = tuple[str, dict[str, Any], str]  # the limits library's storage address, its options, the keys' prefix


def _where(app: Flask, scope: str) -> Where:
    """Where a budget of ``app`` counts: the limits library's storage address, its options, and the keys' prefix
    (``REDIS_PREFIX`` and the budget's scope)."""
    uri = storage_uri(app.config.get("REDIS_URL"), bool(app.config.get("REDIS_CLUSTER")))
    return uri, _storage_options(app), f"{app.config.get('REDIS_PREFIX', 'umpire:')}{scope}"


HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")
TOO_MANY = "Too many requests: wait for Retry-After seconds, then send again."


class Budget:
    """Requests per client address on a budget of their own (flask-limiter's syntax: ``20/second;600/minute``),
    counted by the ``limits`` library's fixed windows where ``RATE_LIMIT`` counts (Redis, shared by every app
    process), and in each process's memory while Redis fails.  ``headers``: each charged answer carries the
    ``X-RateLimit-*`` headers of the item with the least left.  A refusal says ``message`` (``{item}``: the
    item refused) and names the item in ``details.limit``, followed by ``label``."""

    def __init__(self, rate: str, where: Where, *, headers: bool = False, message: str = TOO_MANY, label: str = "") -> None:
        uri, options, prefix = where
        self.items = parse_many(rate)
        self.memory = FixedWindowRateLimiter(MemoryStorage())
        self.shared = self.memory
        if not uri.startswith("memory://"):
            self.shared = FixedWindowRateLimiter(storage_from_string(uri, key_prefix=prefix, **options))
        self.headers, self.message, self.label = headers, message, label

    def charge(self, who: str) -> None:
        """Count one request for ``who``; 429 ``rate_limited`` over the budget."""
        least: tuple[int, float, RateLimitItem] | None = None
        for item in self.items:
            try:
                allowed, window = self.shared.hit(item, who), self.shared
            except Exception:  # Redis failing: this process's own count, rather than no limit or no answer
                allowed, window = self.memory.hit(item, who), self.memory
            if allowed and not self.headers:
                continue
            stats = window.get_window_stats(item, who)
            if least is None or stats.remaining < least[0] or not allowed:
                least = (stats.remaining, stats.reset_time, item)
            if not allowed:
                self._tell(least)
                retry = max(1, math.ceil(stats.reset_time - time.time()))
                message = self.message.format(item=item)
                raise ApiError("rate_limited", message, {"limit": f"{item}{self.label}"}, {"Retry-After": str(retry)})
        if least is not None:
            self._tell(least)

    def _tell(self, least: tuple[int, float, RateLimitItem]) -> None:
        """The ``X-RateLimit-*`` headers of ``least`` on this request's answer, whatever it is (with ``headers``)."""
        if not self.headers:
            return
        remaining, reset, item = least
        values = (str(item.amount), str(remaining), str(int(reset)))

        def tell(response: Response) -> Response:
            for name, value in zip(HEADERS, values, strict=True):
                response.headers[name] = value
            return response

        after_this_request(tell)


PNG_MESSAGE = "Too many pictures rendered for this address ({item}); wait for Retry-After seconds."


def render_budget(app: Flask) -> Budget | None:
    """The app's budget of PNG renderings per client address (``PNG_RATE_LIMIT``, flask-limiter's syntax,
    ``60/minute`` by default; off: none), made on first use, None when off.  Apart from ``RATE_LIMIT`` and from
    ``RENDER_RATE_LIMIT`` (the picture endpoints' requests): a PNG costs hundreds of plays (BENCHMARKS.md
    "Pictures"), so a rendering is counted apart.  Only a picture that must be rendered is charged: one found
    in a cache (service/api/pictures.py) is free."""
    if "umpire.render_budget" not in app.extensions:
        rate = app.config.get("PNG_RATE_LIMIT")
        rate = None if str(rate).strip().lower() == "off" else rate
        made = None
        if rate:
            made = Budget(str(rate), _where(app, "render"), message=PNG_MESSAGE, label=" (render)")
        app.extensions["umpire.render_budget"] = made
    budget: Budget | None = app.extensions["umpire.render_budget"]
    return budget


def charge_render() -> None:
    """One PNG rendering for this request's client address (see :func:`render_budget`)."""
    budget = render_budget(current_app)
    if budget is not None:
        budget.charge(address())
