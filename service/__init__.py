"""HTTP shell over the engine: ``create_app(config=None)`` is the factory.

``gunicorn 'service:create_app()'`` serves it.  Configuration comes from
defaults, then environment variables, then the ``config`` mapping; every
setting is an environment variable of the same name (docs/SETTINGS.md).
The settings of managed matches (Redis, tokens, streams) are read in service/matches/db.py.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from flask import Flask
from flask.sessions import NullSession, SessionInterface

from service.web import appref
from service.web.ratelimit import CREATE_DEFAULT, RENDER_DEFAULT

DEFAULTS: dict[str, Any] = {
    "MAX_BODY_BYTES": 256 * 1024,  # 413 above this (bytes); MAX_CONTENT_LENGTH is the same setting's older name
    "STATE_SECRET": None,  # set: states are signed (service/web/signing.py)
    "STATE_SECRET_PREVIOUS": None,  # the secret before a rotation, still accepted
    "CORS_ORIGINS": None,  # comma separated; unset: no CORS headers
    "RATE_LIMIT": None,  # flask-limiter syntax (50/second); unset: no limit (service/web/ratelimit.py)
    "CREATE_RATE_LIMIT": CREATE_DEFAULT,  # creating matches, per address; off: none (service/web/ratelimit.py)
    "RENDER_RATE_LIMIT": RENDER_DEFAULT,  # drawing pictures, per address; off: none
    "LOG_FORMAT": "text",  # json or text (service/web/requestlog.py); `make run` defaults to json
    "METRICS_TOKEN": None,  # set: GET /metrics needs Authorization: Bearer <it> (service/web/metrics.py)
}
STRINGS = (
    "STATE_SECRET",
    "STATE_SECRET_PREVIOUS",
    "CORS_ORIGINS",
    "RATE_LIMIT",
    "CREATE_RATE_LIMIT",
    "RENDER_RATE_LIMIT",
    "LOG_FORMAT",
    "METRICS_TOKEN",
)


def _bytes(name: str, raw: str) -> int:
    if not raw.strip().isdigit() or int(raw) < 1:
        raise ValueError(f"{name} must be a whole number of bytes, 1 or more, not {raw!r}")
    return int(raw)


def _from_env() -> dict[str, Any]:
    """Settings from the environment, by their own names (``MAX_BODY_BYTES=65536``); empty means unset."""
    out: dict[str, Any] = {}
    for name in ("MAX_CONTENT_LENGTH", "MAX_BODY_BYTES"):  # the new name wins when both are set
        raw = os.environ.get(name)
        if raw:
            out["MAX_BODY_BYTES"] = _bytes(name, raw)
    for name in STRINGS:
        raw = os.environ.get(name)
        if raw:
            out[name] = raw
    return out


class NoSessions(SessionInterface):
    """The service keeps no sessions: its clients hold what they need (a state, a seat's token).  Flask's default
    interface looks for a signing key on every request, finds none, and makes a null session each time, then asks
    whether to save it (issue 20, "Cost per request": about 1.3% of a ``play``'s instructions, cachegrind).  Here
    every request gets the one null session, never saved: reading it finds nothing, and writing to it fails as it
    does under Flask's default without ``SECRET_KEY``."""

    def __init__(self) -> None:
        self.null = NullSession()

    def open_session(self, app: Flask, request: Any) -> NullSession:
        return self.null

    def is_null_session(self, obj: object) -> bool:
        return True

    def save_session(self, app: Flask, session: Any, response: Any) -> None:  # pragma: no cover - never asked
        pass


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    app = Flask(__name__, static_folder=None)  # the page's files are service.api.page's (/static/...)
    appref.remember(app)  # the app itself, for work handed to threads (service/web/appref.py)
    app.session_interface = NoSessions()
    app.config.update(DEFAULTS)
    app.config.update(_from_env())
    if config:
        app.config.update(config)
        if "MAX_CONTENT_LENGTH" in config and "MAX_BODY_BYTES" not in config:
            app.config["MAX_BODY_BYTES"] = config["MAX_CONTENT_LENGTH"]
    app.config["MAX_CONTENT_LENGTH"] = app.config["MAX_BODY_BYTES"]  # what Werkzeug enforces (413)
    if app.config["LOG_FORMAT"] not in ("json", "text"):
        raise ValueError(f"LOG_FORMAT must be json or text, not {app.config['LOG_FORMAT']!r}")

    from service.web.http import StrictJSONProvider

    app.json = StrictJSONProvider(app)

    from marshmallow import ValidationError
    from werkzeug.exceptions import HTTPException

    from engine.errors import EngineError
    from service import discord
    from service.api import games, page, pictures, suggest
    from service.discord import interactions, register
    from service.matches import (
        controls,
        db,
        deliverer,
        events,
        failures,
        health,
        moves,
        outbox,
        routes,
        sweeper,
        webhooks,
    )
    from service.matches import pictures as match_pictures  # noqa: F401  # its views are on pictures.bp: imported before it is registered
    from service.run import embedded
    from service.web import cors, errors, guard, metrics, ratelimit, requestlog, signing

    # Settings and hooks, in the order every request meets them.
    requestlog.init_app(app)  # first, around the app: every answer has the request id, a log line, its metrics
    guard.init_app(app)  # request bodies read within a deadline, before any view (service/web/guard.py)
    signing.init_app(app)
    cors.init_app(app)
    suggest.configure(app)
    db.init_app(app, embedded.url_of_started)  # the match store's settings (Redis; the embedded one without REDIS_URL)
    outbox.init_app(app)  # the webhooks' settings (WEBHOOK_ALLOW...), checked at start
    discord.init_app(app)  # the Discord application's settings (DISCORD_PUBLIC_KEY...), checked at start
    requestlog.observe(app, metrics.time_answer)  # every answer timed (service/web/metrics.py)

    # Every error becomes the one error shape (service/web/errors.py); Redis failures are 503.
    app.register_error_handler(errors.ApiError, errors.api_error)
    app.register_error_handler(ValidationError, errors.schema_error)
    app.register_error_handler(EngineError, errors.engine_error)
    app.register_error_handler(HTTPException, errors.http_error)
    for failure in failures.FAILURES:  # the match store's: 404 match_not_found, 503 (service/matches/failures.py)
        app.register_error_handler(failure, failures.answer)
    app.register_error_handler(Exception, errors.unexpected_error)

    # The routes: the stateless API, pictures and the page; managed matches; operations.
    app.register_blueprint(games.bp)  # /v1/games/...: verdicts, legal moves, replays
    app.register_blueprint(pictures.bp)  # pictures and posts, stateless and of matches (match_pictures' views; views/)
    app.register_blueprint(suggest.bp)  # the built-in bots' moves, searched in processes of their own
    app.register_blueprint(page.bp)  # the page at /, /openapi.yaml, /docs
    app.register_blueprint(routes.bp)  # /v1/matches, /v1/matches/{id}
    app.register_blueprint(moves.bp)  # a match's moves, resignations and record
    app.register_blueprint(controls.bp)  # the umpire's controls of a match: its take-back, co-umpire links
    app.register_blueprint(events.bp)  # a match's event stream
    app.register_blueprint(webhooks.bp)  # a match's webhooks, as they went
    app.register_blueprint(health.bp)  # /v1/health
    app.register_blueprint(metrics.bp)  # /metrics
    app.register_blueprint(interactions.bp)  # /v1/discord/interactions: slash commands (404 without DISCORD_PUBLIC_KEY)
    app.cli.add_command(sweeper.sweep_command)  # flask sweep
    app.cli.add_command(deliverer.deliver_command)  # flask deliver: posts to matches' webhooks
    app.cli.add_command(register.register_command)  # flask discord-register: the slash commands put to Discord
    ratelimit.init_app(app)  # after the routes: it limits every one of them
    return app
