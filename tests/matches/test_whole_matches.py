"""Whole matches of every game and option set played through the match endpoints
with seat tokens; the text record replays to the same final state.  The games
and their option sets come from the registry and the games' declarations
(tests/gamekit.py), so a new game is played here without editing this file."""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask.testing import FlaskClient
from gamekit import config_id, option_configs, random_move
from matchkit import Match, NewMatch

from engine.registry import GAMES


def moves_of(text: str) -> list[str]:
    """The moves of a text record, as a person reads them and ``replay`` takes them."""
    out = []
    for line in text.splitlines():
        head, _, _ = line.partition(" {")
        number, dot, move = head.partition(". ")
        if dot and number.isdigit():
            out.append(move)
    return out


def choose(game_name: str, state: dict[str, Any], turn: int) -> str:
    """A legal move for the seat to move, varied by ``turn`` so games differ from first-move play."""
    game = GAMES[game_name]
    return random_move(game, game.load(state), random.Random(turn))


def play_out(m: Match, game_name: str, limit: int = 400) -> dict[str, Any]:
    state: dict[str, Any] = m.created["state"]
    turn = 0
    while state["status"] == "ongoing":
        assert turn < limit
        seat, ply = state["to_move"], state["ply"]
        move = choose(game_name, state, turn)
        # the other seat may not move for it (403), then the seat to move does
        assert m.move(1 - seat, move, ply).status_code == 403
        r = m.move(seat, move, ply)
        assert r.status_code == 200, r.json
        assert r.json["ply"] == ply + 1 and r.json["clock"]["to_move"] == r.json["state"]["to_move"]
        state = r.json["state"]
        turn += 1
    return state


CONFIGS = option_configs()


@pytest.mark.parametrize(("game_name", "options"), CONFIGS, ids=[config_id(*c) for c in CONFIGS])
def test_whole_match(client: FlaskClient, new_match: NewMatch, game_name: str, options: dict[str, Any]) -> None:
    m = new_match(game_name, options)
    final = play_out(m, game_name)
    assert final["status"] == "finished" and final["to_move"] is None
    assert m.state() == final
    done = m.get().json
    assert done["clock"]["to_move"] is None and done["clock"]["deadline"] is None
    # after the end: 410 for both seats
    assert m.move(0, "A1", final["ply"]).status_code == 410
    rec = m.record()
    entries = rec["moves"]
    assert [e["ply"] for e in entries] == list(range(final["ply"]))
    assert all(e["kind"] == "move" and e["by"] == e["seat"] for e in entries)
    # the plain text record replays to the very same final state (Crystal: the seed drawn is in options)
    replay = client.post(f"/v1/games/{game_name}/replay", json={"options": rec["options"], "moves": moves_of(rec["text"])})
    assert replay.json["valid"] is True and replay.json["plies"] == final["ply"]
    assert replay.json["state"] == final
    assert f'[Result "{"1-0" if final["winner"] == 0 else "0-1" if final["winner"] == 1 else "1/2-1/2"}"]' in rec["text"]
