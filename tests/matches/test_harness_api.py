"""The match API as a harness uses it (issue "Matches for programs"): names,
tags and the illegal-move policy at creation, every illegal attempt in the
record, legal moves inside the answers, waiting for a seat's turn, clocks
with an increment and each seat's remaining time, the record as data that
``replay`` takes, and an umpire's listing and abort.  All on real Redis,
every answer checked against openapi.yaml."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest
from flask.testing import FlaskClient
from gamekit import config_id, option_configs, random_move
from matchkit import FakeClock, Match, NewMatch

from engine.registry import GAMES

ADMIN = "admin-secret"


def create(client: FlaskClient, body: dict[str, Any], **query: str) -> Any:
    r = client.post("/v1/matches", json=body, query_string=query)
    assert r.status_code == 201, r.json
    return r.json


def test_names_tags_and_policy_are_kept_and_echoed(client: FlaskClient, new_match: NewMatch) -> None:
    made = create(
        client,
        {"game": "catchup", "options": {"size": 3}, "players": ["Alice", "Bob"], "tags": ["round-1"], "illegal": "forfeit"},
    )
    assert (made["players"], made["tags"], made["illegal"]) == (["Alice", "Bob"], ["round-1"], "forfeit")
    got = client.get(f"/v1/matches/{made['match_id']}").json
    assert (got["players"], got["tags"], got["illegal"]) == (["Alice", "Bob"], ["round-1"], "forfeit")
    text = client.get(f"/v1/matches/{made['match_id']}/moves").json["text"]
    assert '[Seat0 "Alice"]' in text and '[Seat1 "Bob"]' in text and '[Tags "round-1"]' in text and '[Illegal "forfeit"]' in text
    default = new_match("catchup", {"size": 3})
    assert (default.created["players"], default.created["tags"], default.created["illegal"]) == ([None, None], [], "reject")
    for bad in (
        {"players": ["only one"]},
        {"players": ["", "x"]},
        {"tags": ["x" * 65]},
        {"illegal": "shrug"},
        {"tags": ["a\nb"]},
    ):
        r = client.post("/v1/matches", json={"game": "catchup", **bad})
        assert r.status_code == 422, bad


def test_names_are_used_in_the_announcements(client: FlaskClient) -> None:
    made = create(client, {"game": "catchup", "options": {"size": 3}, "players": ["Alice", "Bob"]})
    m = Match(client, made["match_id"], (made["seats"]["0"], made["seats"]["1"]), made)
    said = " ".join(m.move(0, "C3", 0).json["announcements"])
    assert "Alice" in said and "C3" in said


def test_forfeit_policy_ends_the_match_on_an_illegal_move(client: FlaskClient) -> None:
    made = create(client, {"game": "catchup", "options": {"size": 3}, "illegal": "forfeit"})
    m = Match(client, made["match_id"], (made["seats"]["0"], made["seats"]["1"]), made)
    assert m.move(0, "C3", 0).status_code == 200
    r = m.move(1, "C3", 1)  # occupied (R-C1)
    assert r.status_code == 422 and r.json["legal"] is False
    assert (r.json["error"]["code"], r.json["error"]["step"]) == ("occupied", 0)
    state = r.json["state"]
    assert (state["status"], state["end"], state["winner"]) == ("finished", "illegal", 0)
    assert [e["type"] for e in r.json["events"]] == ["illegal", "end"]
    again = m.move(1, "C3", 1)  # the same request again: the first answer, not 410
    assert again.status_code == 422 and again.headers.get("Idempotent-Replayed") == "true"
    assert again.get_data() == r.get_data()
    assert m.move(1, "A1", 1).status_code == 410
    rec = m.record()
    entry = rec["moves"][-1]
    assert (entry["kind"], entry["seat"], entry["move"], entry["forfeit"], entry["error"]["code"]) == (
        "illegal",
        1,
        "C3",
        True,
        "occupied",
    )
    assert rec["replay"]["moves"] == ["C3", "forfeit 1"] and rec["result"] == "1-0"
    replay = client.post("/v1/games/catchup/replay", json=rec["replay"]).json
    assert replay["valid"] and replay["state"] == state


def test_a_forfeits_illegal_event_carries_the_whole_error(client: FlaskClient) -> None:
    # The engine's forfeit event holds the error whole, its ruling (rule) included; the match's answer,
    # rebuilt from the record, once lost the rule (the record keeps it) while its error still named it.
    made = create(client, {"game": "catchup", "options": {"size": 3}, "illegal": "forfeit"})
    m = Match(client, made["match_id"], (made["seats"]["0"], made["seats"]["1"]), made)
    r = m.move(0, "pass", 0)
    assert r.status_code == 422 and r.json["error"]["rule"] == "R-C1"
    engine = GAMES["catchup"]
    start = engine.new({"size": 3})
    _, events = engine.forfeit(start, 0, engine.play(start, "pass").error)
    assert r.json["events"] == events
    assert r.json["events"][0] == {"type": "illegal", "player": 0, "forfeit": True, **r.json["error"]}
    assert m.record()["moves"][-1]["events"] == events
    assert m.move(0, "pass", 0).get_data() == r.get_data()  # the retry, rebuilt the same way


def test_reject_policy_keeps_every_illegal_attempt(new_match: NewMatch, client: FlaskClient) -> None:
    m = new_match("catchup", {"size": 3})
    assert m.move(0, "C3", 0).status_code == 200
    for text in ("C3", "Z9", "A1 A2 A3"):
        r = m.move(1, text, 1)
        assert r.status_code == 422 and r.json["legal"] is False and r.json["state"]["ply"] == 1
        assert r.json["announcements"]  # the umpire says why
    assert m.move(1, "A1", 1).status_code == 200
    rec = m.record()
    assert [(e["kind"], e["move"]) for e in rec["moves"]] == [
        ("move", "C3"), ("illegal", "C3"), ("illegal", "Z9"), ("illegal", "A1 A2 A3"), ("move", "A1"),
    ]  # fmt: skip
    assert [e["error"]["code"] for e in rec["moves"] if e["kind"] == "illegal"] == ["occupied", "unknown_cell", "too_many_stones"]
    assert rec["replay"]["moves"] == ["C3", "A1"]  # attempts that changed nothing are not moves
    assert rec["text"].count("{seat 1 tried") == 3
    assert client.post("/v1/games/catchup/replay", json=rec["replay"]).json["state"] == m.state()


def stateless_legal(client: FlaskClient, game: str, state: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = client.post(f"/v1/games/{game}/legal-moves", json={"state": state}).json
    return out


@pytest.mark.parametrize(("game", "options"), option_configs(), ids=[config_id(*c) for c in option_configs()])
def test_two_calls_a_ply_legal_moves_ride_on_the_answers(client: FlaskClient, game: str, options: dict[str, Any]) -> None:
    """A bot needs no third call: every answer carries the legal moves of the
    seat to move next, the same list the stateless endpoint gives."""
    made = create(client, {"game": game, "options": options, "illegal": "forfeit"}, legal_moves="true")
    m = Match(client, made["match_id"], (made["seats"]["0"], made["seats"]["1"]), made)
    answer, rnd = made, random.Random(7)
    for _ in range(6):
        state = answer["state"]
        if state["status"] == "finished":
            assert answer["legal_moves"] is None
            break
        assert answer["legal_moves"] == stateless_legal(client, game, state)
        move = random_move(GAMES[game], GAMES[game].load(state), rnd)
        body = {"move": move, "ply": state["ply"]}
        r = client.post(
            f"/v1/matches/{m.id}/moves", json=body, headers=m.auth(state["to_move"]), query_string={"legal_moves": "true"}
        )
        assert r.status_code == 200, r.json
        answer = r.json
    assert client.get(f"/v1/matches/{m.id}", query_string={"legal_moves": "1"}).json["legal_moves"] == (
        None if answer["state"]["status"] == "finished" else stateless_legal(client, game, answer["state"])
    )


def test_wait_turn_returns_when_it_is_that_seats_turn(new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    assert m.get(wait_turn=0, timeout_s=5).json["ply"] == 0  # already seat 0's turn: at once
    start = time.monotonic()
    threading.Timer(0.3, lambda: m.move(0, "C3", 0)).start()
    r = m.get(wait_turn=1, timeout_s=5)
    assert r.json["clock"]["may_move"] == 1 and r.json["ply"] == 1
    assert 0.25 <= time.monotonic() - start < 3
    start = time.monotonic()
    assert m.get(wait_turn=0, timeout_s=0.3).json["ply"] == 1  # nobody moved: the timeout
    assert time.monotonic() - start >= 0.25
    assert m.get(wait_turn=2).status_code == 422


def test_clock_increment_and_remaining_time(new_match: NewMatch, fake_clock: FakeClock) -> None:
    m = new_match("catchup", {"size": 3}, clock={"turn_s": 10, "bank_s": 30, "increment_s": 2})
    clock = m.created["clock"]
    assert clock["increment_s"] == 2
    assert clock["seats"]["0"]["remaining_s"] == 40 and clock["seats"]["1"]["remaining_s"] == 40
    fake_clock.advance(3)
    clock = m.get().json["clock"]
    assert clock["seats"]["0"]["remaining_s"] == 37  # the turn runs: 7 s of it and the 30 s bank
    fake_clock.advance(9)  # 12 s in all: 2 s over the turn, paid from the bank, then 2 s back
    r = m.move(0, "C3", 0)
    seats = r.json["clock"]["seats"]
    assert seats["0"]["bank_s"] == 30 and seats["0"]["remaining_s"] == 40
    assert seats["1"]["remaining_s"] == 40 and seats["1"]["bank_s"] == 30


@pytest.mark.app_config(ADMIN_TOKEN=ADMIN)
def test_umpire_lists_and_aborts_matches(client: FlaskClient, new_match: NewMatch) -> None:
    admin = {"Authorization": f"Bearer {ADMIN}"}
    a = new_match("catchup", {"size": 3})
    b = create(client, {"game": "bug", "tags": ["final"]})
    listed = client.get("/v1/matches", headers=admin).json
    ids = [x["match_id"] for x in listed["matches"]]
    assert ids[:2] == [b["match_id"], a.id]  # newest first
    assert [x["match_id"] for x in client.get("/v1/matches", headers=admin, query_string={"tag": "final"}).json["matches"]] == [
        b["match_id"]
    ]
    assert [
        x["match_id"] for x in client.get("/v1/matches", headers=admin, query_string={"game": "catchup"}).json["matches"]
    ] == [a.id]
    assert client.get("/v1/matches", headers=a.auth(0)).status_code == 401
    assert client.get("/v1/matches").json["error"]["code"] == "unauthorized"  # a server with one: send it
    r = client.post(f"/v1/matches/{a.id}/abort", headers=admin)
    assert r.status_code == 200 and (r.json["state"]["end"], r.json["state"]["winner"]) == ("aborted", None)
    again = client.post(f"/v1/matches/{a.id}/abort", headers=admin)
    assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true" and again.get_data() == r.get_data()
    assert a.move(0, "C3", 0).status_code == 410
    assert a.record()["replay"]["moves"] == ["abort"] and a.record()["result"] == "*"  # aborted: no result
    assert '[Result "*"] {aborted; no result}' in a.record()["text"]  # not "a draw": an abort decides nothing
    finished = client.get("/v1/matches", headers=admin, query_string={"status": "finished"}).json["matches"]
    assert [x["match_id"] for x in finished] == [a.id] and finished[0]["end"] == "aborted"
    # pages: one at a time, every ongoing match once, then no next page
    made = [new_match("plur", {"size": 2}).id for _ in range(3)]
    seen, before = [], None
    for _ in range(10):
        page = client.get("/v1/matches", headers=admin, query_string={"limit": 1, **({"before": before} if before else {})}).json
        seen += [x["match_id"] for x in page["matches"]]
        before = page["next"]
        if before is None:
            break
    assert seen == [*reversed(made), b["match_id"]]
    for bad in ("①:x", "٣:x", "x:y", "12"):  # '①' a digit to str.isdigit that int() refuses (a 500 once); '٣' not ASCII
        r = client.get("/v1/matches", headers=admin, query_string={"before": bad})
        assert r.status_code == 422 and r.json["error"]["details"] == {"parameter": "before"}, bad


def test_listing_is_off_without_an_admin_token_and_abort_takes_the_matchs_umpire_token(
    client: FlaskClient, new_match: NewMatch
) -> None:
    m = new_match("catchup", {"size": 3})
    anything = {"Authorization": "Bearer guess"}
    assert client.get("/v1/matches", headers=anything).json["error"]["code"] == "admin_disabled"
    assert client.post(f"/v1/matches/{m.id}/abort", headers=anything).status_code == 401  # issue 22: not the umpire's
    none = client.get("/v1/matches")  # issue 34: no token at all, on a server without one, is the same 403 (was 401)
    assert (none.status_code, none.json["error"]["code"]) == (403, "admin_disabled")
    umpire = {"Authorization": f"Bearer {m.created['umpire']}"}
    assert client.post(f"/v1/matches/{m.id}/abort", headers=umpire).json["state"]["end"] == "aborted"


@pytest.mark.parametrize(("game", "options"), option_configs(), ids=[config_id(*c) for c in option_configs()])
def test_complete_legal_moves_ride_on_the_answers(client: FlaskClient, game: str, options: dict[str, Any]) -> None:
    """``?legal_moves=true&complete=true``: every answer carries the complete
    legal moves of the seat to move next (at most ``legal_limit``), the list the
    stateless endpoint gives with ``complete: true``; a bot picks one and it is legal."""
    query = {"legal_moves": "true", "complete": "true", "legal_limit": "300"}
    made = create(client, {"game": game, "options": options, "illegal": "forfeit"}, **query)
    m = Match(client, made["match_id"], (made["seats"]["0"], made["seats"]["1"]), made)
    answer, rnd = made, random.Random(7)
    for _ in range(6):
        state = answer["state"]
        if state["status"] == "finished":
            assert answer["legal_moves"] is None
            break
        listed = answer["legal_moves"]
        assert listed["complete"] is True and listed["count"] == len(listed["moves"]) <= 300
        stateless = client.post(f"/v1/games/{game}/legal-moves", json={"state": state, "complete": True, "limit": 300}).json
        assert listed == stateless
        body = {"move": rnd.choice(listed["moves"]), "ply": state["ply"]}
        r = client.post(f"/v1/matches/{m.id}/moves", json=body, headers=m.auth(state["to_move"]), query_string=query)
        assert r.status_code == 200, r.json
        answer = r.json
    r = client.get(f"/v1/matches/{m.id}", query_string={"legal_moves": "true", "legal_limit": "0"})
    assert r.status_code == 422 and r.json["error"]["code"] == "invalid_query"


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ({"wait_ply": "\uff11"}, "wait_ply"),  # a fullwidth one (U+FF11), which int() reads as 1: ASCII digits only
        ({"wait_ply": "1_0"}, "wait_ply"),
        ({"timeout_s": "٣"}, "timeout_s"),  # Arabic-Indic three, which float() reads as 3.0
        ({"timeout_s": "nan"}, "timeout_s"),
        ({"legal_moves": "true", "legal_limit": "²"}, "legal_limit"),
    ],
)
def test_query_numbers_are_ascii_digits(new_match: NewMatch, query: dict[str, str], parameter: str) -> None:
    m = new_match("catchup", {"size": 3})
    r = m.get(**query)
    assert r.status_code == 422 and r.json["error"] == {
        "code": "invalid_query",
        "message": r.json["error"]["message"],
        "details": {"parameter": parameter},
    }
    assert m.get(wait_ply=0, timeout_s="1e-2").status_code == 200  # a number as JSON writes it still reads
