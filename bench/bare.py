"""The baseline of ``python -m bench overhead``: a bare Flask route, served the way ``make run`` serves
the app (``gunicorn bench.bare:app``), answering a small JSON object.  Nothing else: no hooks, no
request log, no metrics, no Redis."""

from __future__ import annotations

from flask import Flask

app = Flask(__name__)


@app.get("/bare")
def bare() -> dict[str, bool]:
    return {"ok": True}
