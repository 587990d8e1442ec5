"""Safe retries without stored answers (issue "Scale out": lean storage).

A match keeps no answer: a retried move is recognised from the record (the
same seat, ply and move) or from its Idempotency-Key's pointer, and its
answer is rebuilt by the engine from the record entry.  Here, for every game
and option set, a whole match is played, then every one of its moves is sent
again, with and without its key, and must get the first answer byte for byte,
marked ``Idempotent-Replayed``; a different move for a past ply is a 409.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask.testing import FlaskClient
from gamekit import config_id, option_configs, random_move
from matchkit import NewMatch

from engine.registry import GAMES

CONFIGS = option_configs()


@pytest.mark.parametrize(("game", "options"), CONFIGS, ids=[config_id(*c) for c in CONFIGS])
def test_every_move_retried_gets_its_first_answer(
    client: FlaskClient, new_match: NewMatch, game: str, options: dict[str, Any]
) -> None:
    m = new_match(game, options)
    engine = GAMES[game]
    state, rnd = m.created["state"], random.Random(3)
    sent: list[tuple[int, int, str, str, bytes]] = []
    while state["status"] == "ongoing" and len(sent) < 40:
        seat, ply = state["to_move"], state["ply"]
        move, key = random_move(engine, engine.load(state), rnd), f"key-{ply}"
        r = m.move(seat, move, ply, **{"Idempotency-Key": key})
        assert r.status_code == 200, r.json
        assert "Idempotent-Replayed" not in r.headers
        sent.append((seat, ply, move, key, r.get_data()))
        state = r.json["state"]
        if len(sent) == 1 and state["status"] == "ongoing":  # another move for a past ply is no retry
            other = next(t for t in engine.legal_moves(engine.new(m.record()["options"])).moves if t != move)
            assert m.move(seat, other, ply).status_code == 409
            assert m.move(seat, other, ply, **{"Idempotency-Key": key}).json["error"]["code"] == "idempotency_key_reused"
    for seat, ply, move, key, first in sent:
        for headers in ({}, {"Idempotency-Key": key}):
            again = m.move(seat, move, ply, **headers)
            assert again.status_code == 200, (ply, again.json)
            assert again.headers.get("Idempotent-Replayed") == "true"
            assert again.get_data() == first, f"ply {ply}: the retry's answer differs from the first"


def test_a_resignation_retried_gets_its_first_answer(new_match: NewMatch) -> None:
    m = new_match("bug")
    first = m.resign(1)
    again = m.resign(1)
    assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true"
    assert again.get_data() == first.get_data()
    assert m.resign(0).status_code == 410  # the other seat: the match is over


def test_a_retry_finds_its_move_in_a_record_kept_in_the_order_it_was_sent(new_match: NewMatch, store: Any) -> None:
    """Catchup's play writes a turn's cells in reading order ("B3 B2" is "B2 B3", the complete list's
    notation); a record kept before that wrote them as sent.  A retry of such a move still gets its first
    answer, not 409 stale_ply: the same move, written either way."""
    m = new_match("catchup", {"size": 3})
    assert m.move(0, "C3", 0).status_code == 200
    first = m.move(1, "B3 B2", 1)
    assert first.status_code == 200 and first.json["move"] == "B2 B3"
    record_key = store.keys(m.id)[1]
    kept = store.r.lindex(record_key, -1)
    assert '"m":"B2 B3"' in kept
    store.r.lset(record_key, -1, kept.replace('"m":"B2 B3"', '"m":"B3 B2"'))  # as a server of before wrote it
    again = m.move(1, "B3 B2", 1)
    assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true", again.json
    assert m.state()["ply"] == 2
