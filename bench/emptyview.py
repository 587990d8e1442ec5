"""A yardstick of ``python -m bench overhead``: the app with all its plumbing (the body guard, the request log
and id, metrics, the limiter's hooks), and a ``play`` view that does nothing but take its body and answer a
small JSON object, as the bare route's ``POST /bare`` does: no parse, no schema, no rules, no answer to build
(issue 20, "Cost per request").  What a ``play`` would cost if everything it is for cost nothing; served as
the bare route is (``gunicorn bench.emptyview:app``).  Not a way to serve the app: a floor to measure against."""

from __future__ import annotations

from flask import request

from service import create_app

app = create_app({})


def nothing(game: str) -> dict[str, bool]:
    request.get_data()
    return {"ok": True}


app.view_functions["games.play"] = nothing
