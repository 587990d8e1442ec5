"""Records that an outsider cannot make grow without end (issue 34, item 7).

With ``illegal: reject`` each refused attempt was a record entry: one client added 30,000 in
113 s, and ``GET .../moves`` then answered 52 MB at once.  Now a turn keeps at most
``REFUSED_PER_TURN`` refused attempts (service/matches/referee.py); one more is ``429
too_many_attempts``, recorded nowhere, while the turn's clock runs on (the seeds' umpire
rejects, and the clock runs).  And the record is answered a page at a time.

The umpire's controls are bounded too: anyone who creates a match holds its umpire token, and 10,000
pause/resume pairs with 500-character reasons made a record of 15 MB.  Now a match keeps at most
``CONTROLS_PER_MATCH`` pauses, gifts of time, new seat tokens, co-umpire links and take-backs; one
more is ``409 too_many_controls``, recorded nowhere, while what closes one of them (a resumption, a
start again, a link withdrawn) and the game itself go on."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from matchkit import FakeClock, NewMatch

from service.matches.db import get_store
from service.matches.match import CONTROLS_PER_MATCH
from service.matches.moves import PAGE
from service.matches.referee import KEPT_MESSAGE_CHARS, KEPT_MOVE_CHARS, REFUSED_PER_TURN


def test_a_turn_keeps_a_few_refused_attempts_then_429_with_its_clock_running(
    client: FlaskClient, new_match: NewMatch, fake_clock: FakeClock
) -> None:
    m = new_match("catchup", {"size": 3}, clock={"turn_s": 10, "bank_s": 0})
    for k in range(REFUSED_PER_TURN):
        fake_clock.advance(1)
        r = m.move(0, "Z9", 0)
        assert (r.status_code, r.json["legal"]) == (422, False), k
    length = len(m.record()["moves"])
    deadline = m.get().json["clock"]["deadline"]
    fake_clock.advance(1.5)
    over = m.move(0, "Z9", 0)
    assert (over.status_code, over.json["error"]["code"]) == (429, "too_many_attempts")
    assert over.json["error"]["details"] == {"limit": REFUSED_PER_TURN, "ply": 0}
    assert over.headers["Retry-After"] == "6"  # 10 s a turn, 4.5 s used: 5.5 s left, rounded up
    assert len(m.record()["moves"]) == length  # recorded nowhere
    now = m.get().json
    assert now["clock"]["deadline"] == deadline and now["clock"]["seats"]["0"]["remaining_s"] == 5.5  # the clock ran on
    assert m.move(0, "C3", 0).status_code == 200  # a legal move is judged as ever
    assert m.move(1, "Z9", 1).status_code == 422  # the next turn keeps its own few
    kinds = [e["kind"] for e in m.record()["moves"]]
    assert kinds == ["illegal"] * REFUSED_PER_TURN + ["move", "illegal"]


def test_an_r_x6_window_keeps_its_own_few(client: FlaskClient, new_match: NewMatch, fake_clock: FakeClock) -> None:
    """Seat 1 spends its refused attempts, then flags: the window it opens is a turn of the opponent's."""
    seed = {"seed": "events", "colors": [["red", "green"], ["blue", "yellow"]], "first": 1}
    m = new_match("crystal", seed, clock={"turn_s": 1, "bank_s": 1})
    answers = [m.move(1, "nonsense", 0).status_code for _ in range(REFUSED_PER_TURN + 1)]
    assert answers == [422] * REFUSED_PER_TURN + [429]
    fake_clock.advance(2.5)  # seat 1 flags at 2 s (R-X6): seat 0 may move for it
    assert m.move(0, "nonsense", 0).status_code == 422


def test_a_refused_attempt_is_an_entry_of_bounded_size(client: FlaskClient, new_match: NewMatch) -> None:
    """A move as steps is 100 strings of up to 1,000 characters each (openapi.yaml Move): refused, it was kept whole
    (here an entry of some 100 KB in Redis, three a turn).  The record keeps the first characters of it and of the sentence."""
    seed = {"seed": "events", "colors": [["red", "green"], ["blue", "yellow"]], "first": 1}
    m = new_match("crystal", seed)
    steps = [f"step {i} " + "z" * 990 for i in range(100)]
    r = m.move(1, steps, 0)
    assert (r.status_code, r.json["legal"]) == (422, False)
    said = r.json["error"]
    assert len(said["message"]) <= KEPT_MESSAGE_CHARS and said["message"].endswith("…")
    (entry,) = m.record()["moves"]
    assert entry["kind"] == "illegal" and entry["error"] == said
    assert len(entry["move"]) == KEPT_MOVE_CHARS and entry["move"].startswith('["step 0 zzz') and entry["move"].endswith("…")
    with client.application.app_context():
        (stored,) = get_store().record(m.id)
    assert len(stored.encode()) < 1024  # of a 100 KB body
    assert m.move(1, "nonsense", 0).json["error"]["message"] == m.record()["moves"][1]["error"]["message"]  # short: whole


def test_the_umpire_s_controls_are_bounded_per_match_and_what_closes_one_still_works(
    client: FlaskClient, new_match: NewMatch
) -> None:
    m = new_match("catchup", {"size": 3}, clock={"turn_s": 20, "bank_s": 60, "start": "umpire"})
    umpire = {"Authorization": f"Bearer {m.created['umpire']}"}

    def control(what: str, body: Any = None) -> Any:
        return client.post(f"/v1/matches/{m.id}/{what}", json=body, headers=umpire)

    assert control("start").status_code == 200
    assert m.move(0, "C3", 0).status_code == 200
    assert control("takeback").status_code == 200  # counted: 1 (the start is not: it comes once)
    assert control("add-time", {"seat": 0, "seconds": 5}).status_code == 200  # 2
    token = control("seats/1/token").json["token"]  # 3
    assert control("umpires").json["link"] == 1  # 4
    reason = "a reason of 500 characters " * 18 + "x" * 14
    for _ in range(CONTROLS_PER_MATCH - 5):  # 95 more: a pause counted, its resumption not
        assert [control("pause", {"reason": reason}).status_code, control("resume").status_code] == [200, 200]
    assert m.move(0, "C3", 0).status_code == 200
    assert control("pause", {"reason": reason}).status_code == 200  # the 100th
    length = len(m.record()["moves"])
    details = {"limit": CONTROLS_PER_MATCH, "made": CONTROLS_PER_MATCH}
    for what, body in (("add-time", {"seat": 1, "seconds": 5}), ("seats/0/token", None), ("umpires", None), ("takeback", None)):
        r = control(what, body)
        error = r.json.get("error", {})
        assert (r.status_code, error.get("code"), error.get("details")) == (409, "too_many_controls", details), what
    assert len(m.record()["moves"]) == length  # recorded nowhere
    # What closes a counted control still works: the match is never left paused, nor a link unwithdrawable.
    assert control("resume").status_code == 200
    again = control("pause", {"reason": reason})
    assert (again.status_code, again.json["error"]["code"]) == (409, "too_many_controls")
    assert client.delete(f"/v1/matches/{m.id}/umpires/1", headers=umpire).status_code == 200
    seat_1 = {"Authorization": f"Bearer {token}"}
    played = client.post(f"/v1/matches/{m.id}/moves", json={"move": "B2 B3", "ply": 1}, headers=seat_1)
    assert played.status_code == 200  # the game goes on, with seat 1's new token
    kinds = [e["kind"] for e in m.record()["moves"]]
    counted = [k for k in kinds if k in ("pause", "add_time", "token", "add_umpire", "takeback")]
    assert len(counted) == CONTROLS_PER_MATCH and len(kinds) == length + 3
    assert control("abort").json["state"]["end"] == "aborted"  # an end is never refused


def played(new_match: NewMatch) -> Any:
    """A Catchup match of three moves, an illegal attempt, then seat 1 resigns: five record entries."""
    m = new_match("catchup", {"size": 3})
    assert [m.move(0, "C3", 0).status_code, m.move(1, "B2 B3", 1).status_code, m.move(0, "C2 C4 D3", 2).status_code] == [200] * 3
    assert m.move(1, "C3", 3).status_code == 422
    assert m.resign(1).status_code == 200
    return m


def test_the_record_is_answered_a_page_at_a_time(client: FlaskClient, new_match: NewMatch) -> None:
    m = played(new_match)
    whole = m.record()
    assert len(whole["moves"]) == 5 and whole["next"] is None
    entries, start, links = [], 0, []
    while start is not None:
        r = client.get(f"/v1/matches/{m.id}/moves", query_string={"start": start, "limit": 2})
        assert r.status_code == 200
        assert {k: v for k, v in r.json.items() if k not in ("moves", "next")} == {
            k: v for k, v in whole.items() if k not in ("moves", "next")
        }  # the whole record's text and replay on every page
        entries += r.json["moves"]
        start = r.json["next"]
        links.append(r.headers.get("Link"))
    assert entries == whole["moves"]
    assert links == [
        f'</v1/matches/{m.id}/moves?start=2&limit=2>; rel="next"',
        f'</v1/matches/{m.id}/moves?start=4&limit=2>; rel="next"',
        None,
    ]
    past = client.get(f"/v1/matches/{m.id}/moves", query_string={"start": 99}).json
    assert (past["moves"], past["next"]) == ([], None)


@pytest.mark.parametrize("query", [{"limit": PAGE + 1}, {"limit": 0}, {"start": -1}, {"start": "x"}])
def test_a_page_out_of_bounds_is_refused(client: FlaskClient, new_match: NewMatch, query: dict[str, Any]) -> None:
    m = new_match("catchup", {"size": 3})
    r = client.get(f"/v1/matches/{m.id}/moves", query_string=query)
    assert (r.status_code, r.json["error"]["code"], r.json["error"]["details"]) == (
        422, "invalid_query", {"parameter": next(iter(query))}
    )  # fmt: skip
