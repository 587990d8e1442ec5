"""A match's webhooks as they went: ``GET /v1/matches/{id}/webhooks`` (issue 22, "Post to the channel by itself").

Where the rest of the webhooks live:

- service/matches/outbox.py: a match's webhooks and their outbox in Redis (cursors, leases,
  failures; the ``hook_*.lua`` scripts), the URL checks made at creation, the settings;
- service/matches/webhook_formats.py: what is posted, in each format (Discord, Slack, ``json``);
- service/matches/webhook_send.py: one try of one post (its deadline, its answer, its retry);
- service/matches/deliverer.py: the deliverer that finds the changes and posts them
  (``flask --app service deliver``).
"""

from __future__ import annotations

from typing import Any

import orjson
from flask import Blueprint

from service.matches import outbox
from service.matches.access import require_umpire
from service.matches.changes import read
from service.matches.db import get_store

bp = Blueprint("webhooks", __name__, url_prefix="/v1")

Json = dict[str, Any]


@bp.get("/matches/<match_id>/webhooks")
def match_webhooks(match_id: str) -> Any:
    """Each webhook of the match: its format and host (never its URL), the changes posted
    and given up, how many wait, the last error, and its latest failures."""
    store = get_store()
    cur = read(store, match_id)
    require_umpire(cur.meta)  # the match's umpire token or the server's ADMIN_TOKEN, as for the umpire's controls
    raw = outbox.read(store, match_id)
    failures = outbox.failures(store, match_id)
    out = []
    for i, hook in enumerate(outbox.hooks_of(raw)):
        cursor = int(raw.get(f"c:{i}", 0))
        last = raw.get(f"err:{i}")
        out.append(
            {
                "format": hook.format,
                "host": hook.host,
                "delivered": int(raw.get(f"ok:{i}", 0)),
                "failed": int(raw.get(f"bad:{i}", 0)),
                "pending": max(0, cur.length - cursor),
                "last_error": None if last is None else _failure(orjson.loads(last)),
                "failures": [_failure(f) for f in failures if f.get("webhook") == i],
            }
        )
    return {"match_id": match_id, "webhooks": out}


def _failure(recorded: Json) -> Json:
    """A failure as answered (the webhook it belongs to is where it is listed)."""
    return {k: v for k, v in recorded.items() if k != "webhook"}
