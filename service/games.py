"""Stateless adjudication: ``/v1/games/...`` (API.md).  No storage, no rules:
each view reads a body, calls the engine, and dumps the answer; every other
outcome is an error raised to service/errors.py.  States are signed on the way
out and their signatures checked on the way in (service/signing.py), when the
server has a ``STATE_SECRET``."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from engine.registry import GAMES, NOT_BUILT, get_game
from service import schemas
from service.http import json_body
from service.signing import signed, verified

bp = Blueprint("games", __name__, url_prefix="/v1")


@bp.get("/games")
def list_games() -> Any:
    games = [g.describe() for g in GAMES.values()]
    not_built = [{"name": name, "why": why} for name, why in NOT_BUILT.items()]
    return schemas.games_response.dump({"games": games, "not_built": not_built})


@bp.post("/games/<game>/new")
def new(game: str) -> Any:
    g = get_game(game)
    body = json_body(schemas.new_request)
    return schemas.state_response.dump({"state": signed(g.dump(g.new(body["options"])))})


@bp.post("/games/<game>/play")
def play(game: str) -> Any:
    g = get_game(game)
    body = json_body(schemas.play_request)
    state = g.load(verified(body["state"]))
    verdict = g.play(state, body["move"])
    error = None if verdict.error is None else verdict.error.to_json()
    answer = signed(g.dump(verdict.state))
    out = schemas.verdict_json(verdict.legal, answer, move=verdict.move, error=error, events=verdict.events)
    dumped: dict[str, Any] = schemas.verdict_response.dump(out)
    return dumped


@bp.post("/games/<game>/legal-moves")
def legal_moves(game: str) -> Any:
    g = get_game(game)
    body = json_body(schemas.legal_moves_request)
    lm = g.legal_moves(g.load(verified(body["state"])), body["limit"])
    out = {"moves": lm.moves, "count": len(lm.moves), "truncated": lm.truncated}
    dumped: dict[str, Any] = schemas.legal_moves_response.dump(out)
    dumped.update(lm.info)
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
    return schemas.replay_response.dump(
        {"valid": result.valid, "plies": result.plies, "first_illegal": first, "state": signed(g.dump(result.state))}
    )
