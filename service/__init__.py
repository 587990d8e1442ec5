"""HTTP shell over the engine: ``create_app(config=None)`` is the factory.

``gunicorn 'service:create_app()'`` serves it.  Configuration comes from
defaults, then environment variables, then the ``config`` mapping.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from flask import Flask

DEFAULTS: dict[str, Any] = {
    "MAX_CONTENT_LENGTH": 256 * 1024,  # 413 above this (bytes)
}


def _from_env() -> dict[str, Any]:
    """Settings from the environment: the config key's own name (``MAX_CONTENT_LENGTH=65536``)."""
    out: dict[str, Any] = {}
    raw = os.environ.get("MAX_CONTENT_LENGTH")
    if raw is not None:
        if not raw.strip().isdigit() or int(raw) < 1:
            raise ValueError(f"MAX_CONTENT_LENGTH must be a whole number of bytes, 1 or more, not {raw!r}")
        out["MAX_CONTENT_LENGTH"] = int(raw)
    return out


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    app = Flask(__name__, static_folder=None)  # the page's files are service.page's (/static/...)
    app.config.update(DEFAULTS)
    app.config.update(_from_env())
    if config:
        app.config.update(config)
    app.json.sort_keys = False  # type: ignore[attr-defined]

    from service.errors import register_error_handlers
    from service.games import bp as games_bp
    from service.matches import init_app as init_matches
    from service.page import bp as page_bp
    from service.pictures import bp as pictures_bp

    register_error_handlers(app)
    app.register_blueprint(games_bp)
    app.register_blueprint(pictures_bp)  # pictures and posts, stateless and of matches (views/)
    app.register_blueprint(page_bp)  # the page at /, /openapi.yaml, /docs
    init_matches(app)  # managed matches, health, `flask sweep` (Redis)
    return app
