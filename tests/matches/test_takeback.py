"""The umpire's take-back of the last move (issue 35 item 1), on real Redis with an exact clock.

``POST /v1/matches/{id}/takeback`` with the match's umpire token (or ``ADMIN_TOKEN``) undoes the last
move and answers the match as ``GET`` does, one ply earlier; a seat's token gets ``403 not_umpire``; the
record keeps the move and the take-back, ``replay`` of the record gives the same position; the clocks
are those of just before the move, the turn restarted at the take-back (lichess's takeback, STYLE.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from matchkit import START_MS, FakeClock, Match, NewMatch, sse_events

from engine.registry import GAMES
from service.matches import referee
from service.matches.match import move_digest
from service.matches.record import iso
from service.matches.store import Store

ADMIN = "admin-secret"
CLOCK = {"turn_s": 20, "bank_s": 60, "step_s": 1}
# A Crystal position past the draft: player 1 shifts first (as tests/matches/test_clocks.py).
GRID = ["GRGRRR", "BGRYBY", "GGYRGB", "YYRGYB", "GYBBRB", "RGYYBB"]
CRYSTAL = {"grid": GRID, "colors": [["red", "green"], ["blue", "yellow"]], "first": 1}
CATCHUP_CELLS = ["A1", "A2", "A3", "B1", "B2", "B3", "B4", "C1", "C2", "C3", "C4", "C5", "D1", "D2", "D3", "D4", "E1", "E2", "E3"]


def at(seconds: float) -> str:
    return iso(START_MS + round(seconds * 1000))


def umpire(m: Match) -> dict[str, str]:
    return {"Authorization": f"Bearer {m.created['umpire']}"}


def take_back(m: Match, body: Any = None, **headers: str) -> Any:
    sent = {**umpire(m), **headers}
    if body is None:
        return m.client.post(f"/v1/matches/{m.id}/takeback", headers=sent)
    return m.client.post(f"/v1/matches/{m.id}/takeback", json=body, headers=sent)


def kinds(m: Match) -> list[str]:
    return [e["kind"] for e in m.record()["moves"]]


def replayed(client: FlaskClient, m: Match) -> dict[str, Any]:
    record = m.record()
    r = client.post(f"/v1/games/{record['game']}/replay", json=record["replay"])
    assert r.status_code == 200 and r.json["valid"], r.json
    state: dict[str, Any] = r.json["state"]
    return state


def same_position(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return {k: v for k, v in a.items() if k != "sig"} == {k: v for k, v in b.items() if k != "sig"}


def a_turn(state: dict[str, Any]) -> str:
    game = GAMES["crystal"]
    first = game.legal_moves(game.load(state)).moves[0]
    return ", ".join([first] * state["shifts_due"])


def test_the_last_move_taken_back_answers_the_match_one_ply_earlier_and_the_record_keeps_both(
    client: FlaskClient, new_match: NewMatch, fake_clock: FakeClock
) -> None:
    """Before: no such control (404): a misclick stood."""
    m = new_match("catchup", {"size": 3}, clock=CLOCK)
    assert m.move(0, "C3", 0).status_code == 200
    one = m.get().json
    assert m.move(1, "A1 A2", 1).status_code == 200  # Bob meant A1 alone: the click on A2 was a slip
    fake_clock.advance(2)
    r = take_back(m, {"ply": 2})
    assert r.status_code == 200, r.json
    answer = r.json
    assert answer["ply"] == 1 and answer["state"] == one["state"]  # the match as GET answered it at ply 1
    assert answer["clock"]["to_move"] == 1 and answer["clock"]["may_move"] == 1
    assert answer["events"] == [{"type": "takeback", "player": 1, "move": "A1 A2", "ply": 1}]
    assert answer["announcements"] == ["The umpire took back Blue's move A1 A2: Blue is to move again."]
    assert {k: answer[k] for k in ("match_id", "game", "players", "tags", "illegal")} == {
        k: one[k] for k in ("match_id", "game", "players", "tags", "illegal")
    }
    now = m.get().json
    assert now["state"] == one["state"] and now["ply"] == 1
    record = m.record()
    assert [(e["kind"], e["ply"], e["ply_after"], e["move"]) for e in record["moves"]] == [
        ("move", 0, 1, "C3"),
        ("move", 1, 2, "A1 A2"),
        ("takeback", 2, 1, "A1 A2"),
    ]
    assert record["replay"]["moves"] == ["C3", "A1 A2", "takeback"]
    assert same_position(replayed(client, m), now["state"])
    assert "3. takeback {the umpire took back seat 1's move A1 A2 at " in record["text"]
    # Bob plays what he meant; the game goes on from there, and the record still replays.
    assert m.move(1, "A1", 1).status_code == 200
    assert same_position(replayed(client, m), m.state())
    assert m.record()["replay"]["moves"] == ["C3", "A1 A2", "takeback", "A1"]


def test_who_may_take_back(client: FlaskClient, new_match: NewMatch, app: Any) -> None:
    app.config["ADMIN_TOKEN"] = ADMIN
    m = new_match("catchup", {"size": 3})
    m.move(0, "C3", 0)
    for headers, status, code in (
        ({}, 401, "unauthorized"),
        (m.auth(0), 403, "not_umpire"),
        (m.auth(1), 403, "not_umpire"),
        ({"Authorization": "Bearer nobody"}, 401, "unauthorized"),
    ):
        r = client.post(f"/v1/matches/{m.id}/takeback", headers=headers)
        assert (r.status_code, r.json["error"]["code"]) == (status, code)
    assert kinds(m) == ["move"]
    r = client.post(f"/v1/matches/{m.id}/takeback", headers={"Authorization": f"Bearer {ADMIN}"})
    assert r.status_code == 200 and r.json["ply"] == 0
    missing = client.post("/v1/matches/00ghostghostghostg/takeback", headers={"Authorization": f"Bearer {ADMIN}"})
    assert missing.status_code == 404
    bad = client.post(f"/v1/matches/{m.id}/takeback", json={"ply": "two"}, headers={"Authorization": f"Bearer {ADMIN}"})
    assert (bad.status_code, bad.json["error"]["code"]) == (422, "invalid_body")


def test_the_clocks_are_those_of_just_before_the_move_and_the_turn_restarts_at_the_take_back(
    new_match: NewMatch, fake_clock: FakeClock
) -> None:
    """Turn 20 s, bank 60 s, step 1 s (R-T1).  Ann moves at 25 s (5 s from her bank: 55 s left); Bob
    thinks 30 s (10 s from his: 50 s) and moves at 55 s; the umpire gave Ann 7 s at 58 s; at 60 s he
    takes Bob's move back: Bob's bank is the 60 s he had before it (and Ann's the 55 s of then: the
    gift made since is undone with it), Bob's turn starts again at 60 s, whole."""
    m = new_match("catchup", {"size": 3}, clock=CLOCK)
    fake_clock.advance(25)
    assert m.move(0, "C3", 0).json["clock"]["seats"]["0"]["bank_s"] == 55
    fake_clock.advance(30)
    assert m.move(1, "A1", 1).json["clock"]["seats"]["1"]["bank_s"] == 50
    fake_clock.advance(3)
    gift = m.client.post(f"/v1/matches/{m.id}/add-time", json={"seat": 0, "seconds": 7}, headers=umpire(m))
    assert gift.json["clock"]["seats"]["0"]["bank_s"] == 62
    fake_clock.advance(2)
    clock = take_back(m).json["clock"]
    assert clock["seats"] == {
        "0": {"bank_s": 55.0, "remaining_s": 75.0},  # her turn to come: 20 s and her bank
        "1": {"bank_s": 60.0, "remaining_s": 80.0, "deadline": at(140)},  # 60 + 20 + 60
    }
    assert (clock["to_move"], clock["turn_started"], clock["deadline"], clock["paused"]) == (1, at(60), at(140), False)
    fake_clock.advance(21)  # 1 s past the turn: 1 s from the bank again, as any turn
    moved = m.move(1, "A1", 1).json
    assert moved["clock"]["seats"]["1"]["bank_s"] == 59
    entry = m.record()["moves"][-1]
    assert (entry["turn_started"], entry["used_s"], entry["bank_charged_s"]) == (at(60), 21.0, 1.0)


def test_a_take_back_while_paused_keeps_the_clocks_paused_with_the_turn_whole(new_match: NewMatch, fake_clock: FakeClock) -> None:
    m = new_match("catchup", {"size": 3}, clock=CLOCK)
    fake_clock.advance(4)
    m.move(0, "C3", 0)
    fake_clock.advance(15)
    m.client.post(f"/v1/matches/{m.id}/pause", headers=umpire(m))
    fake_clock.advance(100)
    clock = take_back(m).json["clock"]
    assert clock["paused"] is True and clock["deadline"] is None and clock["to_move"] == 0
    assert clock["seats"]["0"]["remaining_s"] == 80.0  # her whole turn and bank, when resumed
    fake_clock.advance(50)
    resumed = m.client.post(f"/v1/matches/{m.id}/resume", headers=umpire(m)).json["clock"]
    assert resumed["deadline"] == at(4 + 15 + 100 + 50 + 80)


def test_the_first_move_taken_back_where_the_clocks_start_with_it_waits_for_it_again(
    new_match: NewMatch, fake_clock: FakeClock
) -> None:
    m = new_match("catchup", {"size": 3}, clock={**CLOCK, "start": "first_move"})
    fake_clock.advance(9)
    assert m.move(0, "C3", 0).json["clock"]["started"] is True
    fake_clock.advance(5)
    clock = take_back(m).json["clock"]
    assert (clock["started"], clock["deadline"], clock["turn_started"]) == (False, None, None)
    fake_clock.advance(30)
    assert m.move(0, "C2", 0).json["clock"]["deadline"] == at(9 + 5 + 30 + 80)


def test_take_backs_in_a_row_undo_only_the_last_move_once_and_a_retry_answers_the_first_again(
    new_match: NewMatch, fake_clock: FakeClock
) -> None:
    """Hosts let a player "promptly fix" a slip: the last move, once.  A second take-back in a row finds
    nothing to take back, so a double click or a retried request never undoes two moves."""
    m = new_match("catchup", {"size": 3}, clock=CLOCK)
    m.move(0, "C3", 0)
    m.move(1, "A1", 1)
    first = take_back(m, {"ply": 2}, **{"Idempotency-Key": "tb-1"})
    assert first.status_code == 200 and first.json["ply"] == 1
    fake_clock.advance(3)
    again = take_back(m, {"ply": 2}, **{"Idempotency-Key": "tb-1"})  # the same request again: the first answer
    assert (again.status_code, again.data, again.headers.get("Idempotent-Replayed")) == (200, first.data, "true")
    by_ply = take_back(m, {"ply": 2})  # the same take-back asked again at the ply it was made at: its answer too
    assert (by_ply.status_code, by_ply.data) == (200, first.data)
    blind = take_back(m)  # no ply, no key: a take-back of its own, and there is nothing to take back
    assert (blind.status_code, blind.json["error"]["code"], blind.json["error"]["details"]) == (
        409,
        "cannot_take_back",
        {"why": "taken_back", "ply": 1},
    )
    stale = take_back(m, {"ply": 5})
    assert (stale.status_code, stale.json["error"]["code"], stale.json["error"]["details"]) == (409, "stale_ply", {"ply": 1})
    assert kinds(m) == ["move", "move", "takeback"] and m.get().json["ply"] == 1
    # Once a move is made again, it may be taken back in its turn (and only it).
    m.move(1, "A2", 1)
    assert take_back(m, {"ply": 2}).json["state"]["board"] == {"C3": 0}
    assert kinds(m) == ["move", "move", "takeback", "move", "takeback"]


def test_nothing_to_take_back_at_the_start(new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    r = take_back(m)
    assert (r.status_code, r.json["error"]["details"]["why"]) == (409, "start")
    assert "No move has been played" in r.json["error"]["message"]


@pytest.mark.parametrize(
    ("end", "kind"),
    [("resign", "resign"), ("adjudicate", "adjudicate"), ("abort", "abort"), ("flag", "flag")],
)
def test_an_end_that_is_no_move_stands(new_match: NewMatch, fake_clock: FakeClock, end: str, kind: str) -> None:
    """A flag, a resignation, an abort or an adjudication is no slip of the hand: the clock, a player or the
    umpire decided it (R-T1), and a take-back may not undo it, nor the move before it."""
    m = new_match("catchup", {"size": 3}, clock=CLOCK)
    m.move(0, "C3", 0)
    if end == "resign":
        m.resign(1)
    elif end == "flag":
        fake_clock.advance(81)
    else:
        body = {"winner": 0, "reason": "Bob left"} if end == "adjudicate" else None
        m.client.post(f"/v1/matches/{m.id}/{end}", json=body, headers=umpire(m))
    before = m.get().json
    assert before["state"]["status"] == "finished"
    r = take_back(m)
    assert (r.status_code, r.json["error"]["code"]) == (409, "cannot_take_back")
    assert r.json["error"]["details"] == {"why": "not_a_move", "kind": kind, "ply": 1}
    assert m.get().json["state"] == before["state"] and kinds(m)[-1] != "takeback"


def test_an_illegal_move_that_forfeited_stands(client: FlaskClient) -> None:
    r = client.post("/v1/matches", json={"game": "catchup", "options": {"size": 3}, "illegal": "forfeit"})
    m = Match(client, r.json["match_id"], (r.json["seats"]["0"], r.json["seats"]["1"]), r.json)
    assert m.move(0, "Z9", 0).status_code == 422
    refused = take_back(m)
    assert refused.json["error"]["details"] == {"why": "not_a_move", "kind": "forfeit", "ply": 0}


def full_but_one(new_match: NewMatch) -> Match:
    """A Catchup position with one empty cell (E3): Red's stone there fills the board and ends the game."""
    position = {c: i % 2 for i, c in enumerate(CATCHUP_CELLS[:-1])}
    return new_match("catchup", {"size": 3, "position": position}, clock=CLOCK)


def test_a_move_that_ended_the_game_taken_back_reopens_it(
    client: FlaskClient, new_match: NewMatch, fake_clock: FakeClock
) -> None:
    m = full_but_one(new_match)
    start = m.get().json
    ended = m.move(0, "E3", start["ply"])
    assert ended.json["state"]["status"] == "finished"
    fake_clock.advance(30)
    r = take_back(m)
    assert r.status_code == 200 and r.json["state"] == start["state"]
    assert r.json["announcements"] == ["The umpire took back Red's move E3: Red is to move again."]
    assert (r.json["clock"]["to_move"], r.json["clock"]["deadline"]) == (0, at(30 + 80))
    admin = {"Authorization": "Bearer admin-secret"}
    client.application.config["ADMIN_TOKEN"] = "admin-secret"
    listed = client.get("/v1/matches?status=ongoing", headers=admin).json["matches"]
    assert m.id in [x["match_id"] for x in listed]  # listed as ongoing again
    assert m.id not in [x["match_id"] for x in client.get("/v1/matches?status=finished", headers=admin).json["matches"]]
    assert m.move(0, "E3", start["ply"]).json["state"]["status"] == "finished"  # and the game goes on to its end
    assert same_position(replayed(client, m), m.state())


def test_a_move_that_ended_the_game_stands_after_the_reopening_window(new_match: NewMatch, fake_clock: FakeClock) -> None:
    m = full_but_one(new_match)
    m.move(0, "E3", m.get().json["ply"])
    fake_clock.advance(referee.REOPEN_MS / 1000 + 1)
    r = take_back(m)
    assert (r.status_code, r.json["error"]["details"]["why"]) == (409, "too_late")
    assert "more than 10 minutes ago" in r.json["error"]["message"]


def test_r_x6_a_move_made_for_a_flagged_seat_taken_back_reopens_its_window(new_match: NewMatch, fake_clock: FakeClock) -> None:
    """R-X6: seat 1 flags at 2 s, its window runs to 3 s; seat 0 shifts for it at 2.4 s; taken back at 2.7 s:
    the window is open again, whole (one turn timer from the take-back), for seat 0 to move for seat 1."""
    m = new_match("crystal", CRYSTAL, clock={"turn_s": 1, "bank_s": 1})
    fake_clock.advance(2.4)
    state = m.get().json["state"]
    assert m.move(0, a_turn(state), 0).status_code == 200
    fake_clock.advance(0.3)
    clock = take_back(m).json["clock"]
    assert (clock["proxy"], clock["to_move"], clock["may_move"], clock["deadline"]) == (True, 1, 0, at(3.7))
    assert clock["seats"]["1"]["bank_s"] == 0  # the flag stands: it came before the move
    assert m.get().json["state"] == state
    assert m.move(0, a_turn(state), 0).json["clock"]["proxy"] is False
    assert kinds(m) == ["flag", "move", "takeback", "move"]


def test_r_x6_a_flag_after_the_move_is_undone_with_it(new_match: NewMatch, fake_clock: FakeClock) -> None:
    """Seat 1 shifts at 0.5 s; seat 0 flags at 2.5 s (its window opens); the umpire takes seat 1's move
    back at 2.8 s: the position before it, seat 1 to shift, the banks of then (seat 0's whole again)."""
    m = new_match("crystal", CRYSTAL, clock={"turn_s": 1, "bank_s": 1})
    fake_clock.advance(0.5)
    state = m.get().json["state"]
    assert m.move(1, a_turn(state), 0).status_code == 200
    fake_clock.advance(2.3)
    assert m.get().json["clock"]["proxy"] is True
    clock = take_back(m).json["clock"]
    assert (clock["proxy"], clock["to_move"], clock["deadline"]) == (False, 1, at(2.8 + 2))
    assert (clock["seats"]["0"]["bank_s"], clock["seats"]["1"]["bank_s"]) == (1, 1)
    assert kinds(m) == ["move", "flag", "takeback"]


def test_the_refused_attempts_of_a_turn_count_again_from_nothing_after_a_take_back(new_match: NewMatch) -> None:
    """Issue 34's bound (service/matches/referee.py REFUSED_PER_TURN): the turn restarted is a turn of its own."""
    m = new_match("catchup", {"size": 3})
    m.move(0, "C3", 0)
    for _ in range(referee.REFUSED_PER_TURN):
        assert m.move(1, "C3", 1).status_code == 422
    assert m.move(1, "C3", 1).status_code == 429  # this turn's attempts are spent
    m.move(1, "A1", 1)
    take_back(m)
    for _ in range(referee.REFUSED_PER_TURN):
        assert m.move(1, "C3", 1).status_code == 422  # recorded and refused, as in any new turn
    assert m.move(1, "C3", 1).status_code == 429


def slipped(new_match: NewMatch, then: str | None = None) -> Match:
    """Ann plays C3, Bob A1, which the umpire takes back; then Bob plays ``then`` and Ann C2, when given."""
    m = new_match("catchup", {"size": 3})
    m.move(0, "C3", 0)
    m.move(1, "A1", 1)
    take_back(m)
    if then:
        m.move(1, then, 1)
        m.move(0, "C2", 2)
    return m


@pytest.mark.app_config(EVENTS_LIFETIME_S=0.3)
def test_the_stream_says_the_take_back_with_ids_that_only_grow(client: FlaskClient, new_match: NewMatch) -> None:
    m = slipped(new_match, "A2")
    events = sse_events(client.get(f"/v1/matches/{m.id}/events", headers={"Last-Event-ID": "0"}).get_data(as_text=True))
    got = [(name, event_id, data["ply"]) for name, event_id, data in events if name != "state"]
    assert got == [("move", "1", 1), ("move", "2", 2), ("takeback", "2.1", 1), ("move", "2.2", 2), ("move", "3", 3)]
    said = next(d for n, _, d in events if n == "takeback")
    assert said["announcements"] == ["The umpire took back Blue's move A1: Blue is to move again."]
    assert said["state"]["board"] == {"C3": 0}
    after = sse_events(client.get(f"/v1/matches/{m.id}/events", headers={"Last-Event-ID": "2.1"}).get_data(as_text=True))
    assert [(n, i) for n, i, _ in after if n != "state"] == [("move", "2.2"), ("move", "3")]


def test_the_pictures_show_the_game_as_it_stands(client: FlaskClient, new_match: NewMatch) -> None:
    """``?ply=2`` is the position the game went through last at ply 2: the move made again, not the one taken back."""
    m = slipped(new_match)
    assert client.get(f"/v1/matches/{m.id}/board.svg?ply=2").status_code == 422  # no such position now
    m.move(1, "E3", 1)
    m.move(0, "C2", 2)
    text = client.get(f"/v1/matches/{m.id}/post?ply=2&format=text").get_data(as_text=True)
    assert "E3" in text and "A1" not in text.split("[State")[0]
    assert client.get(f"/v1/matches/{m.id}/board.svg?ply=2").headers["Cache-Control"].endswith("immutable")


def test_little_golem_s_record_of_a_match_has_the_game_as_it_stands(client: FlaskClient, new_match: NewMatch) -> None:
    m = slipped(new_match, "E3")
    lg = client.get(f"/v1/matches/{m.id}/moves?format=littlegolem").get_data(as_text=True)
    imported = client.post("/v1/games/catchup/import", json={"text": lg, "format": "littlegolem"}).json
    assert imported["moves"] == ["C3", "E3", "C2"] and "takeback" not in lg


def test_the_engine_replays_takeback_only_right_after_a_move(client: FlaskClient) -> None:
    def replay(*moves: str) -> Any:
        return client.post("/v1/games/catchup/replay", json={"options": {"size": 3}, "moves": list(moves)}).json

    ok = replay("C3", "A1", "takeback", "A2")
    assert ok["valid"] and ok["state"]["board"] == {"C3": 0, "A2": 1}
    last = replay("C3", "takeback")
    assert (
        last["valid"]
        and last["state"]["board"] == {}
        and last["announcements"] == ["The umpire took back Red's move C3: Red is to move again."]
    )
    for moves, index in ((("takeback",), 0), (("C3", "takeback", "takeback"), 2), (("C3", "resign 1", "takeback"), 2)):
        refused = replay(*moves)
        assert not refused["valid"] and refused["first_illegal"]["index"] == index, moves
        assert refused["first_illegal"]["error"]["code"] == "nothing_to_take_back"
    played = client.post("/v1/games/catchup/play", json={"state": replay()["state"], "move": "takeback"}).json
    assert played["legal"] is False  # a player cannot type it


def test_a_take_back_retried_with_its_key_after_the_game_ended_answers_the_first_and_undoes_nothing(
    client: FlaskClient,
) -> None:
    """MATCHES.md: a retry of a take-back ("the same Idempotency-Key") "answers the first take-back and never
    undoes a second move" - after the game ended too.  Before: the end dropped the key's pointer, so TB-1
    sent again with no body took back Bob's last move E1 E2 E3 and reopened the finished match (200, ply 7,
    ongoing); and time given again under its key answered 410 instead of the match as it is."""
    made = client.post("/v1/matches", json={"game": "catchup", "options": {"size": 3}, "players": ["Ann", "Bob"]})
    m = Match(client, made.json["match_id"], (made.json["seats"]["0"], made.json["seats"]["1"]), made.json)
    gift = {**umpire(m), "Idempotency-Key": "GIFT-1"}
    given = client.post(f"/v1/matches/{m.id}/add-time", json={"seat": 1, "seconds": 30}, headers=gift)
    assert given.status_code == 200 and given.json["clock"]["seats"]["1"]["bank_s"] == 330.0
    m.move(0, "C3", 0)
    first = take_back(m, {"ply": 1}, **{"Idempotency-Key": "TB-1"})
    assert (first.status_code, first.json["ply"]) == (200, 0)
    again = take_back(m, {"ply": 1}, **{"Idempotency-Key": "TB-1"})
    assert (again.status_code, again.data, again.headers.get("Idempotent-Replayed")) == (200, first.data, "true")
    # then the game is played on to its end (each seat the engine's first legal move) until the board is full
    state = m.state()
    game = GAMES["catchup"]
    while state["status"] == "ongoing":
        move = game.legal_moves(game.load(state)).moves[0]
        r = m.move(state["to_move"], move, state["ply"])
        assert r.status_code == 200, r.json
        state = r.json["state"]
    assert state["end"] == "full"
    ended, record = m.get().json, kinds(m)
    retried = take_back(m, **{"Idempotency-Key": "TB-1"})  # no body: the key alone says it is TB-1 again
    assert (retried.status_code, retried.headers.get("Idempotent-Replayed")) == (200, "true"), retried.json
    assert retried.data == first.data  # the first take-back's answer, byte for byte (ply 0, C3 taken back)
    assert m.get().json["state"] == ended["state"] and m.state()["status"] == "finished"  # Bob's last move stands
    assert kinds(m) == record and record.count("takeback") == 1  # nothing undone, nothing recorded
    time_again = client.post(f"/v1/matches/{m.id}/add-time", json={"seat": 1, "seconds": 30}, headers=gift)
    assert (time_again.status_code, time_again.headers.get("Idempotent-Replayed")) == (200, "true"), time_again.json
    assert time_again.json["state"] == ended["state"]  # the match as it is: given once, nothing happened now
    assert kinds(m) == record


def taken_back_error(r: Any) -> tuple[int, Any, Any]:
    error = r.json.get("error") or {}
    return r.status_code, error.get("code"), error.get("details")


def test_a_move_retried_after_a_take_back_gets_the_replacement_s_first_answer_or_is_told_it_was_taken_back(
    new_match: NewMatch,
) -> None:
    """MATCHES.md: a retry, "the same move for the same ply, or the same Idempotency-Key", gets "the first answer
    again".  Ann plays C3 (key k1), the umpire takes it back, Ann plays A1 (k2).  Before: A1 sent again (k2, or
    no key) was 409 stale_ply "someone moved first" (the record's first move for ply 0, C3, was taken as the
    ply's), and C3 sent again with k1 answered 200 "move": "C3", telling Ann C3 stands while the board has A1."""
    m = new_match("catchup", {"size": 3})
    m.move(0, "C3", 0, **{"Idempotency-Key": "k1"})
    assert take_back(m).json["state"]["board"] == {}
    a1 = m.move(0, "A1", 0, **{"Idempotency-Key": "k2"})
    assert (a1.status_code, a1.json["state"]["board"]) == (200, {"A1": 0})
    for headers in ({"Idempotency-Key": "k2"}, {}):
        again = m.move(0, "A1", 0, **headers)
        assert (again.status_code, again.headers.get("Idempotent-Replayed")) == (200, "true"), again.json
        assert again.data == a1.data  # A1's first answer, byte for byte
    for headers in ({"Idempotency-Key": "k1"}, {}):  # C3, applied then taken back: never told it stands
        c3 = m.move(0, "C3", 0, **headers)
        assert taken_back_error(c3) == (409, "taken_back", {"ply": 1, "move": "C3"}), c3.json
        assert "the umpire took it back" in c3.json["error"]["message"]
    assert m.state()["board"] == {"A1": 0} and kinds(m) == ["move", "takeback", "move"]


def test_a_move_retried_with_its_key_right_after_its_take_back_is_not_played_again(
    new_match: NewMatch, fake_clock: FakeClock
) -> None:
    """MATCHES.md: sending a move again with its Idempotency-Key "is always safe: if it was applied you get its
    first answer, else it is applied now".  Before: C3 (k1) taken back, then C3 sent again with k1 for ply 0 was
    judged and applied a second time (record: move C3, takeback, move C3).  Now it is told C3 was applied and taken
    back; Ann may still play C3 anew (a move without the key is judged as any move for the match's ply)."""
    m = new_match("catchup", {"size": 3})
    first = m.move(0, "C3", 0, **{"Idempotency-Key": "k1"})
    take_back(m)
    again = m.move(0, "C3", 0, **{"Idempotency-Key": "k1"})
    assert taken_back_error(again) == (409, "taken_back", {"ply": 0, "move": "C3"}), again.json
    assert m.state()["board"] == {} and kinds(m) == ["move", "takeback"]  # nothing played again
    fake_clock.advance(2)
    anew = m.move(0, "C3", 0)  # Ann plays C3 again, of her own will: a move of its own
    assert (anew.status_code, anew.json["state"]["board"], "Idempotent-Replayed" in anew.headers) == (200, {"C3": 0}, False)
    assert kinds(m) == ["move", "takeback", "move"]
    assert taken_back_error(m.move(0, "C3", 0, **{"Idempotency-Key": "k1"}))[1] == "taken_back"  # k1's C3 stays undone
    same = m.move(0, "C3", 0)  # the same move for the same ply: the standing C3's first answer
    assert (same.status_code, same.data) == (200, anew.data) and same.json["clock"] != first.json["clock"]


def test_a_key_s_pointer_written_before_it_named_the_record_s_place_still_never_plays_its_move_twice(
    new_match: NewMatch, store: Store
) -> None:
    """Pointers in Redis from before this change say "ply seat digest" only: the move is then found in the record."""
    m = new_match("catchup", {"size": 3})
    m.move(0, "C3", 0)
    store.r.hset(store.keys(m.id)[2], "k:old", f"0 0 {move_digest('C3')}")
    take_back(m)
    again = m.move(0, "C3", 0, **{"Idempotency-Key": "old"})
    assert taken_back_error(again) == (409, "taken_back", {"ply": 0, "move": "C3"}), again.json
    assert m.state()["board"] == {} and kinds(m) == ["move", "takeback"]
