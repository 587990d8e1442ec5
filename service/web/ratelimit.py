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
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import math
import time
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, after_this_request, current_app, request
from flask.globals import request_ctx
from flask_limiter import ApplicationLimit, Limiter
from limits import parse_many
from limits.storage import MemoryStorage, storage_from_string
from limits.strategies import FixedWindowRateLimiter

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
    rate = _budget(app, "RATE_LIMIT")
    budgets = [
        (b, endpoints, name)
        for name, endpoints in (
            ("CREATE_RATE_LIMIT", CREATE_ENDPOINTS),
            ("RENDER_RATE_LIMIT", RENDER_ENDPOINTS),
            ("SUGGEST_RATE_LIMIT", SUGGEST_ENDPOINTS),
        )
        if (b := _budget(app, name))
    ]

    if not rate and not budgets:
        return None
    limits: list[str | Callable[[], str] | ApplicationLimit] = []
    if rate:
        limits = [
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
    for budget, endpoints, name in budgets:
        scope = name.removesuffix("_RATE_LIMIT").lower()
        for endpoint in endpoints:
            view: Callable[..., Any] = app.view_functions[endpoint]
            exempt = _umpire if endpoint in CREATE_ENDPOINTS else _exempt
            app.view_functions[endpoint] = limiter.limit(budget, key_func=address, scope=scope, exempt_when=exempt)(view)
    if not limits:
        # Only the budgets of a few views: their decorators check them (flask-limiter's own path for a decorated
        # view), so its hook before every request has nothing to check, yet it resolved every request's limits
        # (issue 20: about a third of a GET /v1/games; BENCHMARKS.md "Cost per request").
        hooks = app.before_request_funcs.get(None, [])
        hooks[:] = [h for h in hooks if h != limiter._check_request_limit]
    if limits or not _only_on_budgeted_views(app, limiter, [e for _, endpoints, _ in budgets for e in endpoints]):
        _only_where_checked(app, limiter)
    app.extensions["umpire.limiter"] = limiter
    return limiter


def _checked() -> bool:
    """Whether flask-limiter checked a limit in this request (it keeps what it found on the request's context)."""
    return hasattr(request_ctx._get_current_object(), "_limiter_request_context")  # type: ignore[attr-defined]


INJECT_HEADERS = "_Limiter__inject_headers"  # flask-limiter's after-request hook (a private name: see below)


def _limiters_hooks(app: Flask, limiter: Limiter) -> tuple[Callable[[Response], Response] | None, Callable[..., None] | None]:
    """flask-limiter's after-request hook as registered on ``app`` and its teardown, each None when a version of
    it names them otherwise (or, the teardown, has not registered it on ``app``)."""
    hook = getattr(Limiter, INJECT_HEADERS, None)
    after = app.after_request_funcs.get(None, [])
    inject = next((h for h in after if isinstance(h, functools.partial) and h.func is hook), None)
    release = getattr(limiter, "_Limiter__release_context", None)
    return inject, release if release is not None and release in app.teardown_request_funcs.get(None, []) else None


def _retry_after_only_when_refused(response: Response) -> Response:
    """flask-limiter puts ``Retry-After`` on every answer whose limits it checked; only a refusal keeps it."""
    if response.status_code not in RETRY_STATUSES:
        response.headers.pop("Retry-After", None)
    return response


def _only_on_budgeted_views(app: Flask, limiter: Limiter, endpoints: list[str]) -> bool:
    """With only the budgets of a few views, flask-limiter's after-request hook (the ``X-RateLimit-*`` headers,
    conditional deductions) and its teardown (its per-request context reset) are asked by those views alone, for
    their own request (``after_this_request``), then ``Retry-After`` kept to refusals: every other request
    goes without them, where it paid for two hooks asking whether a limit had been checked (issue 20, "Cost per
    request": about 5 us of a ``GET /v1/games`` in one process).  An answer the view's request ends with
    (its own, an error's, the limiter's 429) gets them as before.  False, and nothing changed, should a version
    of flask-limiter name its hooks otherwise."""
    inject, release = _limiters_hooks(app, limiter)
    if inject is None or release is None:
        return False
    app.after_request_funcs[None].remove(inject)
    app.teardown_request_funcs[None].remove(release)

    def _headers(response: Response) -> Response:
        try:
            return _retry_after_only_when_refused(inject(response))
        finally:
            release()

    def budgeted(view: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(view)
        def _view(*args: Any, **kwargs: Any) -> Any:
            after_this_request(_headers)  # before the limit is checked: a refusal gets them too
            return view(*args, **kwargs)

        return _view

    for endpoint in endpoints:
        app.view_functions[endpoint] = budgeted(app.view_functions[endpoint])
    return True


def _only_where_checked(app: Flask, limiter: Limiter) -> None:
    """flask-limiter's after-request hook (the ``X-RateLimit-*`` headers, conditional deductions) and its
    teardown act only on a request whose limits it checked, yet on every other one (most requests, with only
    the budgets of a few views) they built its per-request context three times (issue 20, "Cost per
    request"): they run now only where it checked, and do there all they did, then keep ``Retry-After`` to
    refusals.  Should a version of flask-limiter name its hook otherwise, its hook stays as it is, and the
    ``Retry-After`` rule runs after it on every answer."""
    inject, release = _limiters_hooks(app, limiter)
    after = app.after_request_funcs.setdefault(None, [])
    if inject is not None:

        def _headers(response: Response, inject: Callable[[Response], Response] = inject) -> Response:
            return _retry_after_only_when_refused(inject(response)) if _checked() else response

        after[after.index(inject)] = _headers
    else:
        after.insert(0, _retry_after_only_when_refused)  # Flask runs after-request hooks last first: after them all
    if release is not None:

        def _release(exc: BaseException | None = None, release: Callable[..., None] = release) -> None:
            if _checked():
                release(exc)

        teardown = app.teardown_request_funcs[None]
        teardown[teardown.index(release)] = _release


class RenderBudget:
    """PNG renderings per client address, on a budget of their own
    (``PNG_RATE_LIMIT``, flask-limiter's syntax, ``60/minute`` by default;
    off: none), apart from ``RATE_LIMIT`` and from ``RENDER_RATE_LIMIT`` (the
    picture endpoints' requests): a PNG costs hundreds of plays (BENCHMARKS.md
    "Pictures"), so a rendering is counted apart.  Only a picture that
    must be rendered is charged: one found in a cache (service/api/pictures.py) is
    free.  Counted where ``RATE_LIMIT`` counts (Redis, shared by every app
    process), in each process's memory while Redis fails."""

    def __init__(self, rate: str, uri: str, options: dict[str, Any], prefix: str) -> None:
        self.items = parse_many(rate)
        self.memory = FixedWindowRateLimiter(MemoryStorage())
        self.shared = self.memory
        if not uri.startswith("memory://"):
            self.shared = FixedWindowRateLimiter(storage_from_string(uri, key_prefix=prefix, **options))

    def charge(self, who: str) -> None:
        """Count one rendering for ``who``; 429 ``rate_limited`` over the budget."""
        for item in self.items:
            try:
                allowed, window = self.shared.hit(item, who), self.shared
            except Exception:
                allowed, window = self.memory.hit(item, who), self.memory
            if not allowed:
                reset = window.get_window_stats(item, who).reset_time
                retry = max(1, math.ceil(reset - time.time()))
                raise ApiError(
                    "rate_limited",
                    f"Too many pictures rendered for this address ({item}); wait for Retry-After seconds.",
                    {"limit": f"{item} (render)"},
                    {"Retry-After": str(retry)},
                )


def render_budget(app: Flask) -> RenderBudget | None:
    """The app's render budget (made on first use), None when ``PNG_RATE_LIMIT`` is empty."""
    if "umpire.render_budget" not in app.extensions:
        rate = app.config.get("PNG_RATE_LIMIT")
        rate = None if str(rate).strip().lower() == "off" else rate
        uri = storage_uri(app.config.get("REDIS_URL"), bool(app.config.get("REDIS_CLUSTER")))
        prefix = f"{app.config.get('REDIS_PREFIX', 'umpire:')}render"
        app.extensions["umpire.render_budget"] = RenderBudget(rate, uri, _storage_options(app), prefix) if rate else None
    budget: RenderBudget | None = app.extensions["umpire.render_budget"]
    return budget


def charge_render() -> None:
    """One PNG rendering for this request's client address (see :class:`RenderBudget`)."""
    budget = render_budget(current_app._get_current_object())  # type: ignore[attr-defined]
    if budget is not None:
        budget.charge(address())
