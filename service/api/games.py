"""Stateless adjudication: ``/v1/games/...`` (API.md).  No storage, no rules:
each view reads a body, calls the engine, and dumps the answer; every other
outcome is an error raised to service/web/errors.py.  A verdict (``play``,
``replay``) also carries the umpire's ``announcements`` of the move that
reached its state (views.announcements).  States are signed on the way out
and their signatures checked on the way in (service/web/signing.py), when the
server has a ``STATE_SECRET``."""

from __future__ import annotations

import hashlib
from typing import Any, cast

from flask import Blueprint, Flask, Response, current_app, request

import views
from engine.errors import MoveError
from engine.game import line_of
from engine.registry import NOT_BUILT, ROOMS, get_game
from engine.room import RecordFormat
from service.web import schemas, signing
from service.web.errors import ApiError
from service.web.http import json_body
from service.web.signing import signed, verified
from views import diagram

bp = Blueprint("games", __name__, url_prefix="/v1")
# The member of an import's body that may be longer than any other string: a record or a diagram, up to
# schemas.MAX_RECORD_CHARS (the spec's maxLength; a side-10 Product diagram the server draws is 1,127 characters).
RECORD_TEXT = frozenset({"text"})


def describe_games() -> dict[str, Any]:
    """The answer of ``GET /v1/games``: every game's description, its record formats and the page's hints."""
    games = [
        {
            **room.game.describe(),
            "records": import_formats(room.name),
            "hints": room.hints.describe(room.game),  # the page's hints (engine/hints.py)
        }
        for room in ROOMS.values()
    ]
    not_built = [{"name": name, "why": why} for name, why in NOT_BUILT.items()]
    dumped: dict[str, Any] = schemas.games_response.dump({"games": games, "not_built": not_built})
    return dumped


def games_answer(app: Flask) -> tuple[bytes, str]:
    """``GET /v1/games``'s body (the app's JSON, as a view's dict would be) and its ETag, made once per app:
    the games cannot change while a process runs (issue 20: rebuilding and dumping them on every request
    cost about half of the request)."""
    made: tuple[bytes, str] | None = app.extensions.get("umpire.games_answer")
    if made is None:
        body = cast(Response, app.json.response(describe_games())).get_data()  # exactly what returning the dict gives
        made = app.extensions["umpire.games_answer"] = (body, hashlib.sha256(body).hexdigest()[:32])
    return made


@bp.get("/games")
def list_games() -> Any:
    """Every game; with ``If-None-Match`` naming the ETag of this answer, ``304`` and no body."""
    body, etag = games_answer(current_app)
    response = Response(body, mimetype="application/json")
    response.set_etag(etag)
    if "If-None-Match" in request.headers:  # only then is there anything to compare (Range is not served here)
        return response.make_conditional(request)
    return response


@bp.post("/games/<game>/new")
def new(game: str) -> Any:
    g = get_game(game)
    body = json_body(schemas.new_request)
    origin = signing.origin_of(body["options"], g.options)
    return schemas.state_response.dump({"state": signed(g.dump(g.new(body["options"])), origin)})


@bp.post("/games/<game>/play")
def play(game: str) -> Any:
    """The verdict as ``verdict_json`` makes it, returned as it is: every value in it is of its
    field's type already (the engine's state and events, a move error's ``to_json``), so dumping it
    through ``verdict_response`` changed nothing and cost about 7 us of CPU a play (issue 20;
    tests/test_play_cost.py holds every game's answers to the bytes the dump gave)."""
    g = get_game(game)
    body = json_body(schemas.play_request)
    sent, origin = signing.read(body["state"])
    state = g.load(sent)
    verdict = g.play(state, body["move"])
    if not verdict.legal:
        # An illegal move changed nothing, so there is nothing to announce: its error says why.
        assert verdict.error is not None
        unchanged = signed(g.dump(state), origin)
        return schemas.verdict_json(False, unchanged, error=verdict.error.to_json(), events=verdict.events, announcements=[])
    after = signed(g.dump(verdict.state), origin)
    # The state before the move is the one sent: load accepted it, so it is what dump(load(sent))
    # gives, value for value (tests/test_fuzz_states.py), and announcements read its values.
    said = views.announcements(sent, verdict.events, after)
    return schemas.verdict_json(True, after, move=verdict.move, events=verdict.events, announcements=said)


@bp.post("/games/<game>/legal-moves")
def legal_moves(game: str) -> Any:
    g = get_game(game)
    body = json_body(schemas.legal_moves_request)
    state = g.load(verified(body["state"]))
    if body["prefix"] is not None:
        return steps(g, state, body["prefix"])
    if body["complete"]:
        lm = g.complete_moves(state, body["limit"] or schemas.COMPLETE_LIMIT)
    else:
        lm = g.legal_moves(state, body["limit"])
    out = {"moves": lm.moves, "count": len(lm.moves), "truncated": lm.truncated, "complete": lm.complete}
    dumped: dict[str, Any] = schemas.legal_moves_response.dump(out)
    dumped.update(lm.info)
    return dumped


def steps(g: Any, state: Any, prefix: list[str]) -> dict[str, Any]:
    """A move built step by step: the steps that may follow ``prefix`` and
    whether the move may end there.  A wrong step is an answer, as an illegal
    move is: ``error`` names it (its ``step`` indexes ``prefix``), and
    ``prefix`` is cut to the steps before it."""
    try:
        found = g.next_steps(state, prefix)
    except MoveError as err:
        cut = prefix[: err.step] if err.step is not None else []
        out: dict[str, Any] = {"prefix": cut, "steps": [], "count": 0, "complete": False, "move": None, "error": err.to_json()}
    else:
        out = {"prefix": found.prefix, "steps": found.steps, "count": len(found.steps), "complete": found.complete}
        out["move"] = found.move
        shown = g.preview(state, found.prefix)
        if shown is not None:  # never signed: a picture of a turn under way, not a state to play from
            out["preview"] = g.dump(shown)
    dumped: dict[str, Any] = schemas.steps_response.dump(out)
    return dumped


@bp.post("/games/<game>/replay")
def replay(game: str) -> Any:
    g = get_game(game)
    body = json_body(schemas.replay_request)
    result = g.replay(body["options"], body["moves"])
    first = None
    if result.first_illegal is not None:
        index, err = result.first_illegal
        first = {"index": index, "error": err.to_json()}
    state = signed(g.dump(result.state), signing.origin_of(body["options"], g.options))
    before = None if result.before is None else g.dump(result.before)
    said = views.announcements(before, result.events, state) if result.events else []
    out = {"valid": result.valid, "plies": result.plies, "first_illegal": first, "state": state}
    return schemas.replay_response.dump({**out, "move": result.move, "announcements": said})


def import_formats(game: str) -> list[dict[str, str]]:
    """The formats ``POST /v1/games/{game}/import`` reads: other sites' records
    (engine/room.py ``records``), and the text diagram where the game's can be read back."""
    out = [{"name": f.name, "title": f.title} for f in ROOMS[game].records.values()]
    if diagram.readable(game):
        out.append({"name": diagram.FORMAT, "title": diagram.TITLE})
    return out


def record_format(game: str, name: str) -> RecordFormat:
    """The game's record format ``name`` (engine/room.py ``records``), or 422 ``unknown_format``."""
    formats = ROOMS[get_game(game).name].records
    if not formats:  # the spec has no import path for this game (service/api/openapi.py ``x-per-game: records``)
        raise ApiError("not_found", f"{get_game(game).title} reads and writes no other site's records.")
    found = formats.get(name.strip().lower())
    if found is None:
        known = ", ".join(formats) or "none"
        raise ApiError(
            "unknown_format",
            f"The {get_game(game).title} game reads no '{name}' records; it reads: {known}.",
            {"formats": list(formats)},
        )
    return found


@bp.post("/games/<game>/export")
def export_record(game: str) -> Response:
    """A game held by a client (the page's), as ``replay`` takes it, written in
    another site's record format - as a match's moves ``?format=`` writes a
    match's.  Its moves must replay: the first that does not is a 422
    ``bad_record`` naming it (``details.line``: its number, ``details.token``)."""
    g = get_game(game)
    if not ROOMS[g.name].records:  # the spec has no export path for this game (``x-per-game: writers``)
        raise ApiError("not_found", f"{g.title} writes no other site's records.")
    body = json_body(schemas.export_request)
    fmt = record_format(game, body["format"])
    result = g.replay(body["options"], body["moves"])
    if result.first_illegal is not None:
        index, error = result.first_illegal
        move = body["moves"][index]
        raise ApiError(
            "bad_record",
            f"Move {index + 1}, {move}, does not replay: {error.message}",
            {"line": index + 1, "token": move},
        )
    names = body["players"] or ["", ""]
    moves = [m if isinstance(m, str) else g.join_steps(m) for m in line_of(body["moves"])]  # a move may come as its steps
    return Response(fmt.write(body["options"], moves, names), mimetype="text/plain")


@bp.post("/games/<game>/import")
def import_record(game: str) -> Any:
    """Another site's game record (Little Golem's...) as the options and moves
    ``replay`` takes unchanged; a line it cannot read is a 422 naming the line and token."""
    g = get_game(game)
    readable = [f["name"] for f in import_formats(g.name)]
    if not readable:  # the spec has no import path for this game (service/api/openapi.py ``x-per-game: records``)
        raise ApiError("not_found", f"{g.title} reads no other site's records and no text diagram.")
    body = json_body(schemas.import_request, texts=RECORD_TEXT)  # a whole post or record: its schema bounds it
    name = body["format"].strip().lower()
    if name not in readable:
        raise ApiError(
            "unknown_format",
            f"The {g.title} game reads no '{body['format']}' records; it reads: {', '.join(readable)}.",
            {"formats": readable},
        )
    if name == diagram.FORMAT:  # a position: the state itself, the options nearest it, and no moves
        found = diagram.read(g.name, body["text"], body["to_move"], body["options"])
        return {"format": diagram.FORMAT, "options": found.options, "moves": [], "state": found.state}
    fmt = record_format(game, name)
    options, moves = fmt.read(body["text"])
    return {"format": fmt.name, "options": options, "moves": moves}
