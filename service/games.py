"""Stateless adjudication: ``/v1/games/...`` (API.md).  No storage, no rules:
each view reads a body, calls the engine, and dumps the answer."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from engine.game import Verdict
from engine.registry import GAMES, get_game
from service import schemas
from service.http import json_body

bp = Blueprint("games", __name__, url_prefix="/v1")


def verdict_json(game: Any, verdict: Verdict[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"legal": verdict.legal}
    if verdict.legal:
        out["move"] = verdict.move
    out["state"] = game.dump(verdict.state)
    out["events"] = verdict.events
    if verdict.error is not None:
        out["error"] = verdict.error.to_json()
    dumped: dict[str, Any] = schemas.verdict_response.dump(out)
    return dumped


@bp.get("/games")
def list_games() -> Any:
    return {"games": [g.describe() for g in GAMES.values()]}


@bp.post("/games/<name>/new")
def new(name: str) -> Any:
    game = get_game(name)
    body = json_body(schemas.new_request)
    return schemas.state_response.dump({"state": game.dump(game.new(body["options"]))})


@bp.post("/games/<name>/play")
def play(name: str) -> Any:
    game = get_game(name)
    body = json_body(schemas.play_request)
    state = game.load(body["state"])
    return verdict_json(game, game.play(state, body["move"]))


@bp.post("/games/<name>/legal-moves")
def legal_moves(name: str) -> Any:
    game = get_game(name)
    body = json_body(schemas.legal_moves_request)
    state = game.load(body["state"])
    lm = game.legal_moves(state, body["limit"])
    out = {"moves": lm.moves, "count": len(lm.moves), "truncated": lm.truncated}
    dumped: dict[str, Any] = schemas.legal_moves_response.dump(out)
    dumped.update(lm.info)
    return dumped


@bp.post("/games/<name>/replay")
def replay(name: str) -> Any:
    game = get_game(name)
    body = json_body(schemas.replay_request)
    result = game.replay(body["options"], body["moves"])
    first = None
    if result.first_illegal is not None:
        index, err = result.first_illegal
        first = {"index": index, "error": err.to_json()}
    return schemas.replay_response.dump(
        {"valid": result.valid, "plies": result.plies, "first_illegal": first, "state": game.dump(result.state)}
    )
