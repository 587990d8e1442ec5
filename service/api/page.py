"""The web page and the documents of the API: ``GET /`` (the umpire's desk,
service/api/static/), ``GET /openapi.yaml`` (the spec) and ``GET /docs`` (the
spec as a readable page, service/api/docs.py).

The page is static HTML, CSS and plain JavaScript with no build step, served
from the package (``/static/...``); it uses only the public API, as any
client would.  Its script is native ES modules, one concern each, importing
each other by relative paths: index.html loads the entry, app.js (whose header
says which module holds what), and preloads the rest.  A browser runs a module
only if it is served as JavaScript; the type comes from the file's name,
through Python's ``mimetypes`` (tests/test_page_modules.py).

The page is sent with a Content-Security-Policy that lets it run only its own
script and reach only its own origin (a picture's ``<style>`` block, drawn
into the page, is the one inline thing allowed), and may not be framed
(``frame-ancestors 'none'``, ``X-Frame-Options: DENY``); every answer of the
service carries ``X-Content-Type-Options: nosniff`` (service/web/requestlog.py ``EVERY_ANSWER``).
"""

from __future__ import annotations

import mimetypes

from flask import Blueprint, Response

from service.api import docs

# The page's scripts are ES modules, which a browser runs only when they are served as JavaScript; the type is
# read from the system's table, which on some machines maps .js to something else (the standard library's
# documented way to say it here instead).
mimetypes.add_type("text/javascript", ".js")

bp = Blueprint("page", __name__, static_folder="static", static_url_path="/static")


# The pictures the page draws into itself (views/svgkit.py) keep their colours in a <style> block.
CSP = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "connect-src 'self' blob:",  # the saved PNG is a blob: URL of the page's own making
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
PAGE_HEADERS = {"Content-Security-Policy": CSP, "X-Frame-Options": "DENY"}


@bp.get("/")
def index() -> Response:
    resp = bp.send_static_file("index.html")
    resp.headers.update(PAGE_HEADERS)
    return resp


@bp.get("/openapi.yaml")
def spec() -> Response:
    return Response(docs.spec_text(), mimetype="application/yaml")


@bp.get("/docs")
def reference() -> Response:
    return Response(docs.page(), mimetype="text/html")
