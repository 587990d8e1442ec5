"""The web page and the documents of the API: ``GET /`` (the umpire's desk,
service/static/), ``GET /openapi.yaml`` (the spec) and ``GET /docs`` (the
spec as a readable page, service/docs.py).

The page is static HTML, CSS and plain JavaScript with no build step, served
from the package (``/static/...``); it uses only the public API, as any
client would.
"""

from __future__ import annotations

from flask import Blueprint, Response

from service import docs

bp = Blueprint("page", __name__, static_folder="static", static_url_path="/static")


@bp.get("/")
def index() -> Response:
    return bp.send_static_file("index.html")


@bp.get("/openapi.yaml")
def spec() -> Response:
    return Response(docs.spec_text(), mimetype="application/yaml")


@bp.get("/docs")
def reference() -> Response:
    return Response(docs.page(), mimetype="text/html")
