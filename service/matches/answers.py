"""The HTTP channel of managed matches: a match as ``GET /v1/matches/{id}`` gives it, and the
answer to a change, written from its :class:`~service.matches.description.Description`
(:func:`answer_of`).

A change's answer is made from its description only, which is made from the committed record
entry and the states around it; so the answer to a retry, described again from the record,
is the first answer byte for byte (nothing of it is stored)."""

from __future__ import annotations

from typing import Any

from engine.game import Json
from engine.registry import GAMES
from service.matches.description import Description, clock_json
from service.matches.match import Live, Meta
from service.matches.query import flag, has_query, number
from service.matches.record import CONTROLS, TAKEBACK
from service.web import schemas

REFUSED = 422  # an illegal move, refused or forfeiting: a verdict with legal false


def match_json(meta: Meta, live: Live, now: int) -> Json:
    """A match as ``GET /v1/matches/{id}`` gives it."""
    return {
        "match_id": meta.match_id,
        "game": meta.game,
        "players": list(meta.players),
        "state": live.state,
        "clock": clock_json(live, now, meta.start),
        "ply": live.ply,
    }


def match_view(meta: Meta, live: Live, now: int) -> Json:
    """A match as ``GET /v1/matches/{id}`` answers it: the match, then its tags and policy."""
    return {**match_json(meta, live, now), "tags": list(meta.tags), "illegal": meta.illegal}


def as_is(meta: Meta, live: Live, now: int) -> Json:
    """The answer to a repeat that tells nothing anew (service/matches/changes.py ``AsIs``): the
    match as it is, and nothing happened now."""
    return {**match_view(meta, live, now), "events": [], "announcements": []}


def _match_fields(d: Description) -> Json:
    """The match's own fields after the change, as a verdict's answer ends (the verdict carries the state)."""
    return {"match_id": d.meta.match_id, "game": d.meta.game, "players": list(d.meta.players), "clock": d.clock, "ply": d.ply}


def answer_of(d: Description) -> Json:
    """The answer to the change ``d`` describes: a verdict and the match's fields for a move (the
    verdict of an illegal one carries its error and, when it was only refused, no events);
    for a resignation, an abort or an adjudication the match after it and the events; for an
    umpire's control or take-back the match after it, the events and the umpire's sentence."""
    e = d.entry
    if e.kind == "move":
        verdict = schemas.verdict_json(True, d.after, move=e.move, events=d.events, announcements=d.announcements)
        return {**verdict, **_match_fields(d)}
    if e.kind == "illegal":
        events = d.events if e.forfeit else ()  # a refused attempt changed nothing: no events of a move
        verdict = schemas.verdict_json(False, d.after, error=e.error, events=events, announcements=d.announcements)
        return {**verdict, **_match_fields(d)}
    view = {**match_view(d.meta, d.live, e.at), "events": d.events}
    return {**view, "announcements": d.announcements} if e.kind in CONTROLS or e.kind == TAKEBACK else view


def status_of(d: Description) -> int:
    """The answer's status: 422 for an illegal move (refused, or forfeiting the match), else 200."""
    return REFUSED if d.kind == "illegal" else 200


def legal_moves(game_name: str, state: Any, complete: bool = False, limit: int | None = None) -> Any:
    """The legal moves for the seat to move, as ``POST /legal-moves`` lists them (null once finished):
    with ``complete``, every whole move (at most ``limit``, by default ``schemas.COMPLETE_LIMIT``)."""
    game = GAMES[game_name]
    position = game.load(state) if isinstance(state, dict) else state
    if game.is_over(position):
        return None
    found = game.complete_moves(position, limit or schemas.COMPLETE_LIMIT) if complete else game.legal_moves(position, limit)
    out = {"moves": found.moves, "count": len(found.moves), "truncated": found.truncated, "complete": found.complete}
    return {**out, **found.info}


def with_legal(answer: dict[str, Any], game: str, state: Any) -> dict[str, Any]:
    """``answer`` plus ``legal_moves`` when the request asked for them (``?legal_moves=true``;
    ``&complete=true`` for whole moves, ``&legal_limit=N`` to cap the list)."""
    if not has_query():
        return answer
    complete = flag("complete")
    limit = number("legal_limit", 1, 100000, whole=True)
    if flag("legal_moves"):
        answer = {**answer, "legal_moves": legal_moves(game, state, complete, None if limit is None else int(limit))}
    return answer
