"""Cross-origin requests (CORS), for front ends served from other origins: flask-cors.

``CORS_ORIGINS`` lists the origins allowed, comma separated
(``https://a.example,https://b.example``; ``*`` for any); unset, the
service sends no CORS headers at all and browsers keep other origins out.
Preflights allow the headers a client sends (``Content-Type``,
``Authorization``, ``Idempotency-Key``, ``X-Request-ID``); answers expose the
headers a client reads (``Idempotent-Replayed``, ``X-Request-ID``,
``Retry-After``).  No cookies are involved (tokens travel in
``Authorization``), so credentials are not allowed.
"""

from __future__ import annotations

from flask import Flask
from flask_cors import CORS

ALLOW_HEADERS = ("Content-Type", "Authorization", "Idempotency-Key", "X-Request-ID")
EXPOSE_HEADERS = ("Idempotent-Replayed", "X-Request-ID", "Retry-After")
MAX_AGE_S = 600  # how long a browser may keep a preflight's answer


def origins(raw: str | None) -> list[str]:
    """``CORS_ORIGINS`` as a list (empty: CORS off)."""
    return [o.strip() for o in (raw or "").split(",") if o.strip()]


def init_app(app: Flask) -> None:
    allowed = origins(app.config["CORS_ORIGINS"])
    if not allowed:
        return
    CORS(
        app,
        origins="*" if "*" in allowed else allowed,
        allow_headers=list(ALLOW_HEADERS),
        expose_headers=list(EXPOSE_HEADERS),
        methods=["GET", "POST", "OPTIONS"],
        max_age=MAX_AGE_S,
        supports_credentials=False,
    )
