"""Who may do what to a managed match: the bearer token of a request, a seat's, the
match's umpire's (or a co-umpire link's), the server's admin token (API.md's order: 404, then 401/403).

A seat's token the umpire replaced is told apart from one the match never had (``401
token_replaced``, with ``details.seat``: the player asks the umpire for the new link), for the
latest few of each seat (service/matches/match.py ``REPLACED_KEPT``)."""

from __future__ import annotations

import hmac

from flask import current_app, request

from service.matches.match import Meta
from service.web.errors import ApiError


def bearer() -> str | None:
    """The token of ``Authorization: Bearer <token>``, if any."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def require_seat(meta: Meta) -> int:
    """The seat the bearer token is of; else 401: ``token_replaced`` for a token of the seat the umpire
    replaced, ``unauthorized`` for none or one the match never had."""
    sent = bearer()
    seat = meta.seat_of(sent)
    if seat is None:
        replaced = meta.replaced_seat(sent)
        if replaced is not None:
            raise ApiError(
                "token_replaced",
                f"This link of seat {replaced} was replaced by the umpire and no longer works: ask the umpire for the new link.",
                {"seat": replaced},
            )
        raise ApiError("unauthorized", "Send a seat token of this match: Authorization: Bearer <token>.")
    return seat


def require_admin() -> None:
    """The admin token: 403 ``admin_disabled`` when the server has none at all (whatever was sent:
    there is no token that could do), else 401 (none sent, or not it)."""
    token, sent = current_app.config["ADMIN_TOKEN"], bearer()
    if not token:
        raise ApiError("admin_disabled", "Listing matches needs ADMIN_TOKEN set on the server.")
    if sent is None:
        raise ApiError("unauthorized", "Send the admin token: Authorization: Bearer <token>.")
    if not hmac.compare_digest(sent.encode(), str(token).encode()):
        raise ApiError("unauthorized", "That is not the admin token.")


def require_umpire(meta: Meta, links: bool = False) -> None:
    """This match's umpire token, one of its co-umpire links, or the server's ``ADMIN_TOKEN``: else
    401 (none sent, or one nobody knows) or 403 ``not_umpire`` (a seat's token: a player is not the
    umpire).  ``links``: making or withdrawing co-umpire links, which a co-umpire link may not (403)."""
    sent = bearer()
    if sent is None:
        raise ApiError("unauthorized", "Send the match's umpire token: Authorization: Bearer <token>.")
    if meta.is_umpire(sent):
        return
    admin = current_app.config["ADMIN_TOKEN"]
    if admin and hmac.compare_digest(sent.encode(), str(admin).encode()):
        return
    if meta.co_umpire(sent) is not None:
        if links:
            raise ApiError("not_umpire", "A co-umpire link cannot make or withdraw umpire links: the umpire who made it can.")
        return
    if meta.seat_of(sent) is not None:
        raise ApiError("not_umpire", "That is a seat's token: only the match's umpire may do this.")
    raise ApiError("unauthorized", "That is not this match's umpire token.")
