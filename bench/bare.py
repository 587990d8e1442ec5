"""The baseline of ``python -m bench overhead``: a bare Flask route, served the way ``make run`` serves
the app (``gunicorn bench.bare:app``), answering a small JSON object.  Nothing else: no hooks, no
request log, no metrics, no Redis.  ``POST /bare`` reads the request's body first (and answers the
same): what a request with a body costs before anyone looks at it, the floor under a ``play``."""

from __future__ import annotations

from flask import Flask, request

app = Flask(__name__)


@app.get("/bare")
def bare() -> dict[str, bool]:
    return {"ok": True}


@app.post("/bare")
def bare_post() -> dict[str, bool]:
    request.get_data()
    return {"ok": True}
