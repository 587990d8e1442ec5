"""The umpire's controls over a live match (issue 22), on real Redis (and on the cluster:
the Makefile's CLUSTER_SUITE runs this file again with MATCH_TESTS_CLUSTER=1).

Creating a match answers its umpire token; with it (or the server's ADMIN_TOKEN) the
umpire starts, pauses and resumes the clocks, gives a seat time, reissues a seat's
token, aborts and adjudicates.  Times are exact: the injected clock (RULES R-T1)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask.testing import FlaskClient
from matchkit import START_MS, FakeClock, Match, NewMatch

from service.matches import sweeper
from service.matches.record import iso
from service.matches.store import Store, shard_of

ADMIN = "admin-secret"
CLOCK = {"turn_s": 20, "bank_s": 60, "step_s": 1}  # 80 s before a first flag


def at(seconds: float) -> str:
    return iso(START_MS + round(seconds * 1000))


def umpire(m: Match) -> dict[str, str]:
    return {"Authorization": f"Bearer {m.created['umpire']}"}


def control(m: Match, what: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
    sent = umpire(m) if headers is None else headers
    if body is None:
        return m.client.post(f"/v1/matches/{m.id}/{what}", headers=sent)
    return m.client.post(f"/v1/matches/{m.id}/{what}", json=body, headers=sent)


def kinds(m: Match) -> list[str]:
    return [e["kind"] for e in m.record()["moves"]]


def test_creating_a_match_answers_its_umpire_token_and_a_running_clock_by_default(
    new_match: NewMatch, fake_clock: FakeClock
) -> None:
    m = new_match("catchup", {"size": 3}, clock=CLOCK)
    token = m.created["umpire"]
    assert isinstance(token, str) and len(token) >= 32 and token not in m.tokens
    clock = m.created["clock"]
    assert (clock["start"], clock["started"], clock["paused"], clock["deadline"]) == ("created", True, False, at(80))


def test_with_start_umpire_no_clock_runs_and_no_move_is_taken_until_the_start(new_match: NewMatch, fake_clock: FakeClock) -> None:
    """The issue's case: a seat opened 11 s late had 9 s of a 20 s turn; now it has all 20 (and its bank)."""
    m = new_match("catchup", {"size": 3}, clock={**CLOCK, "start": "umpire"})
    clock = m.created["clock"]
    assert (clock["started"], clock["paused"], clock["deadline"], clock["turn_started"]) == (False, False, None, None)
    assert clock["seats"]["0"]["remaining_s"] == 80.0
    assert clock["start"] == "umpire" and m.client.get(f"/v1/matches/{m.id}").json["clock"]["start"] == "umpire"
    fake_clock.advance(11)
    r = m.move(0, "A1", 0)
    assert r.status_code == 409 and r.json["error"]["code"] == "not_started"
    assert control(m, "pause").json["error"]["code"] == "not_started"
    assert sweeper.sweep_once(m_store(m), fake_clock() + 10**6) == 0  # nothing to flag: no deadline
    started = control(m, "start")
    assert started.status_code == 200, started.json
    assert (started.json["clock"]["started"], started.json["clock"]["deadline"]) == (True, at(11 + 80))
    assert started.json["announcements"] == ["The umpire started the clocks."]
    again = control(m, "start")
    assert again.status_code == 409 and again.json["error"]["code"] == "already_started"
    fake_clock.advance(5)
    moved = m.move(0, "A1", 0)
    assert moved.status_code == 200 and m.record()["moves"][-1]["used_s"] == 5.0
    assert kinds(m) == ["start", "move"]


def m_store(m: Match) -> Store:
    from service.matches.db import get_store

    app: Any = m.client.application
    return get_store(app)


def test_with_start_first_move_the_first_move_is_untimed(new_match: NewMatch, fake_clock: FakeClock) -> None:
    m = new_match("catchup", {"size": 3}, clock={**CLOCK, "start": "first_move"})
    assert (m.created["clock"]["start"], m.created["clock"]["started"]) == ("first_move", False)
    # What it waits for is the first move, not the umpire: the post says so (it said "waiting for the start").
    post = m.client.get(f"/v1/matches/{m.id}/post").get_data(as_text=True)
    assert "- Red: starts with the first move, turn 0:20 left, bank 1:00" in post and "waiting" not in post
    fake_clock.advance(500)  # far past a turn and a bank: no flag, the clock waits for the first move
    r = m.move(0, "A1", 0)
    assert r.status_code == 200, r.json
    first = m.record()["moves"][0]
    assert (first["used_s"], first["bank_charged_s"], first["bank_left_s"]) == (0.0, 0.0, 60.0)
    clock = r.json["clock"]
    assert (clock["start"], clock["started"], clock["deadline"]) == ("first_move", True, at(500 + 80))


def test_a_pause_freezes_the_turn_and_resume_restores_it_to_the_millisecond(
    new_match: NewMatch, fake_clock: FakeClock, store: Store
) -> None:
    m = new_match("catchup", {"size": 3}, clock=CLOCK)
    fake_clock.advance(7.25)
    paused = control(m, "pause")
    assert paused.status_code == 200, paused.json
    clock = paused.json["clock"]
    assert (clock["paused"], clock["deadline"], clock["seats"]["0"]["remaining_s"]) == (True, None, 72.75)
    assert paused.json["announcements"] == ["The umpire paused the clocks."]
    assert store.deadline(m.id) is None  # out of the shard's deadlines: no sweeper looks at it
    fake_clock.advance(1000)
    assert sweeper.sweep_once(store, fake_clock()) == 0
    assert m.get().json["clock"]["seats"]["0"]["remaining_s"] == 72.75  # a read flags nothing either
    r = m.move(0, "A1", 0)
    assert r.status_code == 409 and r.json["error"]["code"] == "paused"
    assert control(m, "pause").json["error"]["code"] == "already_paused"
    resumed = control(m, "resume")
    assert resumed.status_code == 200 and resumed.json["clock"]["deadline"] == at(7.25 + 1000 + 72.75)
    assert store.deadline(m.id) == START_MS + 1_080_000
    assert control(m, "resume").json["error"]["code"] == "not_paused"
    fake_clock.advance(20)
    moved = m.move(0, "A1", 0)
    assert moved.status_code == 200
    entry = m.record()["moves"][-1]
    assert (entry["used_s"], entry["bank_charged_s"], entry["bank_left_s"]) == (27.25, 8.0, 52.0)  # 7.25 + 20 s (R-T1)
    assert kinds(m) == ["pause", "resume", "move"]


def test_a_paused_clock_is_not_credited_an_outage(new_match: NewMatch, fake_clock: FakeClock, store: Store) -> None:
    """R-T3 (issue 21) credits running clocks only: a paused one keeps its time exactly."""
    m = new_match("catchup", {"size": 3}, clock=CLOCK)
    fake_clock.advance(3)
    control(m, "pause")
    shard = shard_of(m.id)
    store.r.set(store.beat_key(shard), str(fake_clock() - 10_000))
    before = m.get().json["clock"]
    assert before["paused"] and before["seats"]["0"]["remaining_s"] == 77.0
    fake_clock.advance(60)
    assert control(m, "resume").json["clock"]["deadline"] == at(63 + 77)


def test_time_given_moves_the_running_seats_deadline_once_per_idempotency_key(client: FlaskClient, fake_clock: FakeClock) -> None:
    made = client.post("/v1/matches", json={"game": "catchup", "options": {"size": 3}, "clock": CLOCK, "players": ["Al", "Bo"]})
    m = Match(client, made.json["match_id"], (made.json["seats"]["0"], made.json["seats"]["1"]), made.json)
    key = {**umpire(m), "Idempotency-Key": "gift-1"}
    r = control(m, "add-time", {"seat": 0, "seconds": 30}, key)
    assert r.status_code == 200, r.json
    assert (r.json["clock"]["seats"]["0"]["bank_s"], r.json["clock"]["deadline"]) == (90.0, at(110))
    assert r.json["announcements"] == ["The umpire gave Al 30 s."]
    again = control(m, "add-time", {"seat": 0, "seconds": 30}, key)
    assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true"
    assert again.json["clock"]["seats"]["0"]["bank_s"] == 90.0  # given once
    other = control(m, "add-time", {"seat": 1, "seconds": 30}, key)
    assert other.status_code == 422 and other.json["error"]["code"] == "idempotency_key_reused"
    small = control(m, "add-time", {"seat": 1, "seconds": 1.5})
    assert small.json["clock"]["seats"]["1"]["bank_s"] == 61.5 and small.json["clock"]["deadline"] == at(110)
    for bad in ({"seat": 0, "seconds": 0}, {"seat": 0, "seconds": 3601}, {"seat": 2, "seconds": 5}, {"seat": True, "seconds": 5},
                {"seat": 0}, {"seat": 0, "seconds": "5"}):  # fmt: skip
        wrong = control(m, "add-time", bad)
        assert wrong.status_code == 422 and wrong.json["error"]["code"] == "invalid_body", bad
    assert [e.get("seconds") for e in m.record()["moves"]] == [30.0, 1.5]
    fake_clock.advance(100)
    assert m.move(0, "A1", 0).status_code == 200  # in time only thanks to the gift
    assert m.record()["moves"][-1]["bank_left_s"] == 10.0


def test_a_reissued_token_works_and_the_old_one_gets_401_at_once(new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3}, clock=CLOCK)
    old = m.auth(0)
    r = control(m, "seats/0/token")
    assert r.status_code == 200, r.json
    assert r.json["seat"] == 0 and r.json["token"] not in m.tokens
    refused = m.client.post(f"/v1/matches/{m.id}/moves", json={"move": "A1", "ply": 0}, headers=old)
    assert refused.status_code == 401
    new = {"Authorization": f"Bearer {r.json['token']}"}
    assert m.client.post(f"/v1/matches/{m.id}/moves", json={"move": "A1", "ply": 0}, headers=new).status_code == 200
    assert m.move(1, "B2", 1).status_code == 200  # the other seat's token is untouched
    assert control(m, "seats/2/token").status_code == 404
    event = m.record()["moves"][0]
    assert event["kind"] == "token" and r.json["token"] not in json.dumps(m.record())  # never in the record


def test_who_may_use_the_controls(client: FlaskClient, new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3}, clock=CLOCK)
    assert control(m, "pause", headers={}).status_code == 401
    assert control(m, "pause", headers={"Authorization": "Bearer guess"}).status_code == 401
    seat = control(m, "pause", headers=m.auth(0))
    assert seat.status_code == 403 and seat.json["error"]["code"] == "not_umpire"
    other = new_match("catchup", {"size": 3}, clock=CLOCK)
    assert control(m, "pause", headers=umpire(other)).status_code == 401  # another match's umpire
    assert client.post("/v1/matches/00AAAAAAAAAAAAAAAA/pause", headers=umpire(m)).status_code == 404  # 404 first
    assert control(m, "adjudicate", {"winner": 3, "reason": "x"}, headers={}).status_code == 401  # 401 before the body


@pytest.mark.app_config(ADMIN_TOKEN=ADMIN)
def test_the_admin_token_keeps_its_powers(new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3}, clock=CLOCK)
    admin = {"Authorization": f"Bearer {ADMIN}"}
    assert control(m, "pause", headers=admin).status_code == 200
    assert control(m, "abort", headers=admin).json["state"]["end"] == "aborted"


def test_adjudication_ends_the_match_through_the_record_and_replays(client: FlaskClient, new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3}, clock=CLOCK)
    assert m.move(0, "A1", 0).status_code == 200
    body = {"winner": 1, "reason": "seat 0 left the hall"}
    r = control(m, "adjudicate", body)
    assert r.status_code == 200, r.json
    assert (r.json["state"]["end"], r.json["state"]["winner"], r.json["clock"]["to_move"]) == ("adjudicated", 1, None)
    again = control(m, "adjudicate", body)
    assert again.status_code == 200 and again.get_data() == r.get_data()  # the first answer, byte for byte
    other = control(m, "adjudicate", {"winner": None, "reason": "draw"})
    assert other.status_code == 410 and other.json["error"]["code"] == "match_finished"
    for late in ("pause", "start", "seats/0/token", "abort"):
        assert control(m, late).status_code == 410, late
    record = m.record()
    assert record["replay"]["moves"] == ["A1", "adjudicate 1"] and record["result"] == "0-1"
    assert "2. adjudicate 1 {the umpire adjudicated at" in record["text"] and "(seat 0 left the hall)" in record["text"]
    assert record["moves"][-1]["reason"] == "seat 0 left the hall"
    replayed = client.post("/v1/games/catchup/replay", json=record["replay"])
    assert replayed.status_code == 200 and replayed.json["state"]["end"] == "adjudicated", replayed.json


@pytest.mark.parametrize(("players", "named"), [(None, "Player 2"), (["Ann", "Bob"], "Bob")])
def test_the_record_names_the_seat_an_adjudication_gives_the_game_to(client: FlaskClient, players: Any, named: str) -> None:
    """Issue 35: "adjudicate 1" is seat 1, which Crystal's rules call Player 2 (RULES: player 0 is the
    seed's Player 1): the record's text says whose seat it is, the match's name or the rules' own."""
    body = {"game": "crystal", "options": {"grid": ["GRGRRR", "BGRYBY", "GGYRGB", "YYRGYB", "GYBBRB", "RGYYBB"],
            "colors": [["red", "green"], ["blue", "yellow"]], "first": 0}, "clock": CLOCK, "players": players}  # fmt: skip
    made = client.post("/v1/matches", json=body).json
    m = Match(client, made["match_id"], (made["seats"]["0"], made["seats"]["1"]), made)
    assert control(m, "adjudicate", {"winner": 1, "reason": "time"}).status_code == 200
    text = m.record()["text"]
    assert f'[Result "0-1"] {{adjudicated; seat 1 ({named}) won}}' in text
    assert f": seat 1 ({named}) wins (time)}}" in text.splitlines()[-1] and text.splitlines()[-1].startswith("1. adjudicate 1 {")


def test_a_draw_by_adjudication(new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3}, clock=CLOCK)
    r = control(m, "adjudicate", {"winner": None, "reason": "agreed"})
    record = m.record()
    assert (r.json["state"]["winner"], record["result"], record["replay"]["moves"]) == (None, "1/2-1/2", ["adjudicate draw"])


def test_every_control_is_an_event_of_the_stream_with_its_sentence(client: FlaskClient, fake_clock: FakeClock) -> None:
    body = {"game": "catchup", "options": {"size": 3}, "clock": {**CLOCK, "start": "umpire"}, "players": ["Al", "Bo"]}
    made = client.post("/v1/matches", json=body).json
    m = Match(client, made["match_id"], (made["seats"]["0"], made["seats"]["1"]), made)
    for what, sent in (("start", None), ("pause", None), ("resume", None), ("add-time", {"seat": 1, "seconds": 30}),
                       ("seats/1/token", None), ("adjudicate", {"winner": 0, "reason": "Bo left"})):  # fmt: skip
        assert control(m, what, sent).status_code == 200, what
    r = client.get(f"/v1/matches/{m.id}/events", headers={"Last-Event-ID": "0"})
    events = [
        (block.split("\n")[0].removeprefix("event: "), json.loads(block.split("data: ", 1)[1]))
        for block in r.get_data(as_text=True).split("\n\n")
        if block.startswith("event: ")
    ]
    assert [name for name, _ in events] == ["start", "pause", "resume", "add_time", "token", "adjudicate", "end"]
    said = [data["announcements"] for _, data in events]
    assert said[:6] == [
        ["The umpire started the clocks."],
        ["The umpire paused the clocks."],
        ["The umpire resumed the clocks."],
        ["The umpire gave Bo 30 s."],
        ["The umpire issued a new token for Bo's seat: the old one no longer works."],
        ["The umpire adjudicated: Al wins (Bo left).", "Al wins by the umpire's decision."],
    ]
    assert events[1][1]["clock"]["paused"] is True and events[2][1]["clock"]["paused"] is False
    text = m.record()["text"]
    assert "{the umpire paused the clocks at" in text and "{the umpire gave seat 1 30 s at" in text


def test_the_post_says_the_clocks_wait_for_the_start_and_are_paused(new_match: NewMatch, fake_clock: FakeClock) -> None:
    """An umpire posting while the clocks wait or are paused says so: the times are frozen, not running."""
    m = new_match("catchup", {"size": 3}, clock={**CLOCK, "start": "umpire"})
    post = m.client.get(f"/v1/matches/{m.id}/post").get_data(as_text=True)
    assert "- Red: waiting for the start, turn 0:20 left, bank 1:00" in post and "- Blue: bank 1:00" in post
    assert control(m, "start").status_code == 200
    fake_clock.advance(5)
    assert control(m, "pause").status_code == 200
    post = m.client.get(f"/v1/matches/{m.id}/post").get_data(as_text=True)
    assert "- Red: paused by the umpire, turn 0:15 left, bank 1:00" in post
    assert control(m, "resume").status_code == 200
    post = m.client.get(f"/v1/matches/{m.id}/post").get_data(as_text=True)
    assert "- Red: turn 0:15 left, bank 1:00" in post and "paused" not in post


@pytest.mark.parametrize("reason", ["line\u2028two", "x\x85y", "para\u2029graph", "c1\x9bcontrol"])
def test_an_umpires_reason_holds_no_line_break(new_match: NewMatch, reason: str) -> None:
    """A pause's reason with a line break in it (U+2028, NEL) would start a line of its own in a post or the record's text."""
    m = new_match("catchup", {"size": 3})
    r = control(m, "pause", {"reason": reason})
    assert (r.status_code, r.json["error"]["code"], r.json["error"]["details"]["field"]) == (422, "invalid_body", "reason")
    assert kinds(m) == [] and m.state()["status"] == "ongoing"  # nothing paused, nothing recorded
    assert control(m, "pause", {"reason": "Zoë's tea, 日本"}).status_code == 200


def test_a_seat_handed_to_another_player_keeps_who_held_it_before(client: FlaskClient, store: Store) -> None:
    """Discord's ``/umpire seat seat:1 player:@Cara`` hands Bob's seat to Cara with a new token
    (controls.decide_reissue with a player).  The match's names are the players' from then on, but
    the record keeps who held the seat: its entry, its line in the record's text and its announcement
    name Bob and Cara (before: "issued a new token for Cara's seat", and Bob was gone from the record)."""
    from service.matches import controls
    from service.matches.changes import Committed, described
    from service.matches.match import token_hash

    made = client.post("/v1/matches", json={"game": "catchup", "options": {"size": 3}, "players": ["Ann", "Bob"]}).json
    m = Match(client, made["match_id"], (made["seats"]["0"], made["seats"]["1"]), made)
    assert m.move(0, "C3", 0).status_code == 200
    assert m.move(1, "B2", 1).status_code == 200
    with client.application.app_context():
        done = described(store, m.id, None, lambda cur: controls.decide_reissue(cur, 1, token_hash("cara"), "Cara"), "x")
    assert isinstance(done, Committed)
    assert done.d.announcements == ["The umpire handed Bob's seat to Cara, who plays it from now on."]
    rec = m.record()
    assert rec["players"] == ["Ann", "Cara"]
    token = rec["moves"][-1]
    assert (token["kind"], token["seat"], token["handed"]) == ("token", 1, {"from": "Bob", "to": "Cara"})
    assert token["events"][0] == {"type": "umpire", "action": "token", "seat": 1, "from": "Bob", "to": "Cara"}
    assert "{the umpire issued a new token for seat 1, handing it from Bob to Cara at " in rec["text"]
    # a new token with no player handed over is said as before, and its entry has no "handed"
    reissued = client.post(f"/v1/matches/{m.id}/seats/0/token", headers=umpire(m))
    assert reissued.status_code == 200, reissued.json
    assert "handed" not in m.record()["moves"][-1]
    assert m.record()["moves"][-1]["events"][0] == {"type": "umpire", "action": "token", "seat": 0}
