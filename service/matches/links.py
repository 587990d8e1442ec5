"""A match's links besides the seats' own (issue 35): co-umpire links, and a seat's check of its link.

* ``POST /v1/matches/{id}/umpires`` (the match's umpire token, or ``ADMIN_TOKEN``): a co-umpire link,
  a second umpire token for the same match (a second device, a co-umpire), answered once; every
  umpire's control takes it, but making or withdrawing links.  At most
  :data:`~service.matches.match.CO_UMPIRES` at once and
  :data:`~service.matches.match.CO_UMPIRES_MADE` over the match (``409 too_many_umpires``).
* ``DELETE /v1/matches/{id}/umpires/{link}``: that link withdrawn (it gets 401 at once).
* ``GET /v1/matches/{id}/seat`` with a seat's token: ``{"match_id", "seat"}``, or the 401 a move would
  get (``token_replaced`` with ``details.seat``, ``unauthorized``): a seat's page checks its link on
  opening, without moving.

The record says when a link was made or withdrawn (entries ``add_umpire``, ``remove_umpire`` with its
number), never the token.
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint

from engine.registry import GAMES
from service.matches import referee
from service.matches.access import require_seat, require_umpire
from service.matches.cas import Settled
from service.matches.changes import Change, change, finished_error, read
from service.matches.db import get_store
from service.matches.match import CO_UMPIRES, CO_UMPIRES_MADE, token_hash
from service.matches.routes import TOKEN_BYTES
from service.web.errors import ApiError

bp = Blueprint("links", __name__, url_prefix="/v1")


def decide_add_umpire(cur: Settled, digest: str) -> Change:
    """A co-umpire link whose token's SHA-256 is ``digest``, decided on ``cur`` (the caller checked it is the
    match's umpire asking: ``require_umpire(meta, links=True)``)."""
    meta = cur.meta
    if cur.live.finished:
        raise finished_error(cur.live)
    if len(meta.co_umpires) >= CO_UMPIRES or meta.co_made >= CO_UMPIRES_MADE:
        message = (
            f"A match has at most {CO_UMPIRES} co-umpire links at once and {CO_UMPIRES_MADE} in all: "
            "withdraw one first (DELETE .../umpires/{link})."
        )
        raise ApiError("too_many_umpires", message, {"limit": CO_UMPIRES, "made": meta.co_made})
    made = meta.with_co_umpire(digest)
    done = referee.control(GAMES[meta.game], meta, cur.live, "add_umpire", cur.now, link=made.co_made)
    return Change(done.live, [done.entry], [], done.events, meta=made)


def decide_remove_umpire(cur: Settled, link: int) -> Change:
    """Co-umpire link ``link`` withdrawn, decided on ``cur`` (404 for a link the match has not)."""
    meta = cur.meta
    if cur.live.finished:
        raise finished_error(cur.live)
    if all(number != link for number, _ in meta.co_umpires):
        raise ApiError("not_found", f"This match has no co-umpire link {link} (made, and not withdrawn).")
    done = referee.control(GAMES[meta.game], meta, cur.live, "remove_umpire", cur.now, link=link)
    return Change(done.live, [done.entry], [], done.events, meta=meta.without_co_umpire(link))


@bp.post("/matches/<match_id>/umpires")
def add_umpire(match_id: str) -> Any:
    """A co-umpire link: ``{"match_id", "link", "token"}``, the token answered once (the server keeps its SHA-256)."""
    token = secrets.token_urlsafe(TOKEN_BYTES)

    def decide(cur: Settled) -> Change:
        require_umpire(cur.meta, links=True)
        return decide_add_umpire(cur, token_hash(token))

    def write(d: Any) -> dict[str, Any]:
        return {"match_id": match_id, "link": d.entry.link, "token": token}

    return change(get_store(), match_id, None, decide, "the co-umpire link", write)


@bp.delete("/matches/<match_id>/umpires/<int:link>")
def remove_umpire(match_id: str, link: int) -> Any:
    """Co-umpire link ``link`` withdrawn: the match as the umpire's controls answer it."""

    def decide(cur: Settled) -> Change:
        require_umpire(cur.meta, links=True)
        return decide_remove_umpire(cur, link)

    return change(get_store(), match_id, None, decide, "the co-umpire link's withdrawal")


@bp.get("/matches/<match_id>/seat")
def seat_check(match_id: str) -> Any:
    """Which seat the bearer token opens (a seat's page checks its link without moving)."""
    cur = read(get_store(), match_id)
    seat = require_seat(cur.meta)
    return {"match_id": match_id, "seat": seat}
