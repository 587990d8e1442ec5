"""A yardstick of ``python -m bench overhead``: the app with all its plumbing (the body guard, the request log
and id, metrics, the limiter's hooks), and a ``play`` view that does nothing but take its body and answer a
small JSON object, as the bare route's ``POST /bare`` does: no parse, no schema, no rules, no answer to build
(issue 20, "Cost per request").  What a ``play`` would cost if everything it is for cost nothing; served as
the bare route is (``gunicorn bench.emptyview:app``).  Not a way to serve the app: a floor to measure against."""

from __future__ import annotations

from bench.cutview import make

app = make("body")  # play cut after its body's read, the plumbing whole
