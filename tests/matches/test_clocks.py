"""Server clocks over HTTP with an injected clock (exact) and the sweeper:
RULES R-T1 (turn, bank, step, flag), R-X6 (Crystal's proxy window)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from flask.testing import FlaskClient
from matchkit import START_MS, FakeClock, Match, NewMatch

from engine.registry import GAMES
from service.matches import sweeper
from service.matches.match import Live
from service.matches.record import iso
from service.matches.store import Store

# A Crystal position past the draft: player 1 shifts first (R-X1 set-up given at creation).
GRID = ["GRGRRR", "BGRYBY", "GGYRGB", "YYRGYB", "GYBBRB", "RGYYBB"]
CRYSTAL = {"grid": GRID, "colors": [["red", "green"], ["blue", "yellow"]], "first": 1}


def at(seconds: float) -> str:
    """The RFC 3339 time ``seconds`` after the fake clock's start."""
    return iso(START_MS + round(seconds * 1000))


def raw_live(store: Store, match_id: str) -> Live:
    """The match as stored, read without the settling every API read does."""
    text = store.r.hget(store.key(match_id), "live")
    assert text is not None
    return Live.from_json(text)


def a_turn(state: dict[str, Any]) -> str:
    """Some legal Crystal turn: the first legal shift, as many times as due (R-X2 allows repeats)."""
    game = GAMES["crystal"]
    first = game.legal_moves(game.load(state)).moves[0]
    return ", ".join([first] * state["shifts_due"])


def test_bank_is_charged_in_whole_steps_rounded_up(new_match: NewMatch, fake_clock: FakeClock) -> None:
    m = new_match("catchup", {"size": 3}, clock={"turn_s": 1, "bank_s": 3, "step_s": 1})
    fake_clock.advance(1.2)  # 0.2 s past the allowance: 1 s from the bank (R-T1)
    r = m.move(0, "C3", 0)
    assert r.json["clock"]["seats"]["0"]["bank_s"] == 2
    fake_clock.advance(0.9)  # within the allowance: nothing
    r = m.move(1, "C2 B2", 1)
    assert r.json["clock"]["seats"]["1"]["bank_s"] == 3
    assert r.json["clock"]["deadline"] == at(2.1 + 1 + 2)  # seat 0: turn start + turn + bank
    fake_clock.advance(3.0)  # 2 s over: exactly the bank left, still in time
    r = m.move(0, "A1", 2)
    assert r.status_code == 200 and r.json["clock"]["seats"]["0"]["bank_s"] == 0
    moves = m.record()["moves"]
    assert [(e["used_s"], e["bank_charged_s"], e["bank_left_s"]) for e in moves] == [(1.2, 1, 2), (0.9, 0, 3), (3.0, 2, 0)]
    assert moves[0]["turn_started"] == at(0) and moves[0]["at"] == at(1.2)


def test_bug_bank_step_of_ten_seconds(new_match: NewMatch, fake_clock: FakeClock) -> None:
    m = new_match("bug")  # preset bug: 90 s, bank 600 s, step 10 s
    fake_clock.advance(101)  # 11 s over costs 20 s
    r = m.move(0, "C3", 0)
    assert r.status_code == 200 and r.json["clock"]["seats"]["0"]["bank_s"] == 580


def test_flag_applied_on_read_dated_at_the_deadline(new_match: NewMatch, fake_clock: FakeClock, store: Store) -> None:
    m = new_match("catchup", {"size": 3}, clock={"turn_s": 1, "bank_s": 1})
    fake_clock.advance(2.0)  # the last millisecond in time
    assert m.get().json["state"]["status"] == "ongoing"
    fake_clock.advance(5.0)  # long past: nobody asked until now
    assert raw_live(store, m.id).state["status"] == "ongoing"  # no sweeper ran
    r = m.get()
    state = r.json["state"]
    assert (state["status"], state["end"], state["winner"]) == ("finished", "flag", 1)  # R-T1: seat 0 loses
    assert r.json["clock"]["to_move"] is None and r.json["clock"]["seats"]["0"]["bank_s"] == 0
    (flag,) = m.record()["moves"]
    assert (flag["kind"], flag["seat"], flag["at"], flag["used_s"], flag["bank_left_s"]) == ("flag", 0, at(2.0), 2.0, 0)
    assert store.deadline(m.id) is None


def test_a_move_after_the_deadline_meets_the_flag(new_match: NewMatch, fake_clock: FakeClock) -> None:
    m = new_match("catchup", {"size": 3}, clock={"turn_s": 1, "bank_s": 0})
    fake_clock.advance(1.001)
    r = m.move(0, "C3", 0)
    assert (r.status_code, r.json["error"]["code"], r.json["error"]["details"]["end"]) == (410, "match_finished", "flag")


def test_illegal_move_does_not_stop_the_clock(new_match: NewMatch, fake_clock: FakeClock) -> None:
    m = new_match("catchup", {"size": 3}, clock={"turn_s": 1, "bank_s": 1})
    fake_clock.advance(1.5)
    assert m.move(0, "C2 C3", 0).status_code == 422  # R-C1: one stone on the first turn
    fake_clock.advance(0.6)  # 2.1 s in all: past turn + bank although the illegal try came in time
    assert m.move(0, "C3", 0).status_code == 410


def test_sweeper_flags_with_nobody_asking(new_match: NewMatch, fake_clock: FakeClock, store: Store) -> None:
    early = new_match("catchup", {"size": 3}, clock={"turn_s": 1, "bank_s": 1})
    late = new_match("catchup", {"size": 3}, clock={"turn_s": 10, "bank_s": 1})
    fake_clock.advance(2.0)
    assert sweeper.sweep_once(store, fake_clock()) == 0  # due only after the deadline's last millisecond
    fake_clock.advance(0.001)
    assert sweeper.sweep_once(store, fake_clock()) == 1
    assert raw_live(store, early.id).state["end"] == "flag"
    assert raw_live(store, late.id).state["status"] == "ongoing"
    assert store.deadline(early.id) is None


def test_an_idle_sweep_asks_each_shard_once_and_a_due_one_again(
    new_match: NewMatch, fake_clock: FakeClock, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sweeper round with nothing due is one pipeline a master: each shard's earliest deadline, whence the
    next deadline too; it asked for the due matches and, in a second pipeline, for the earliest deadline besides
    (issue 20: an idle sweeper took 4.5-5.5% of a core).  A shard with a deadline due is asked again for its
    matches, and the next deadline read anew.  (Its beats, once a second, are apart: tests/matches/test_outages.py.)"""
    sent: list[int] = []  # the size of each pipeline sent, on any master
    for client, _ in store.masters().values():
        make = client.pipeline

        def counting(*args: Any, make: Any = make, **kwargs: Any) -> Any:
            pipe = make(*args, **kwargs)
            execute = pipe.execute

            def counted(*a: Any, **k: Any) -> Any:
                sent.append(len(pipe.command_stack))
                return execute(*a, **k)

            pipe.execute = counted
            return pipe

        monkeypatch.setattr(client, "pipeline", counting)
    early = new_match("catchup", {"size": 3}, clock={"turn_s": 1, "bank_s": 1})
    late = new_match("catchup", {"size": 3}, clock={"turn_s": 10, "bank_s": 1})
    idle = sweeper.Sweeper(store, beats=False)
    try:
        assert idle.sweep(fake_clock()) == 0
        masters = store.masters().values()
        assert sorted(sent) == sorted(len(shards) for _, shards in masters)
        assert idle.next == store.deadline(early.id)
        sent.clear()
        fake_clock.advance(2.001)
        assert idle.sweep(fake_clock()) == 1  # the early match flagged (R-T1)
        assert raw_live(store, early.id).state["end"] == "flag"
        assert idle.next == store.deadline(late.id)  # read again after the settling, not the round's stale first
        assert len(sent) == len(masters) + 2  # every master's look, then the due shard's matches and its master's earliest
    finally:
        idle.close()


def test_a_due_deadline_another_sweeper_settled_first_is_not_taken_for_the_next(
    new_match: NewMatch, fake_clock: FakeClock, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between a round's look and its asking for the due matches, another sweeper may settle them: the round
    then has nothing to settle, and the earliest deadline it looked at is gone; the next one is read again,
    or the sweeper would wake at once for nothing, round after round."""
    early = new_match("catchup", {"size": 3}, clock={"turn_s": 1, "bank_s": 1})
    late = new_match("catchup", {"size": 3}, clock={"turn_s": 10, "bank_s": 1})
    fake_clock.advance(2.001)
    stale = store.deadline(early.id)
    look = store.look

    def settled_by_another(*args: Any, **kwargs: Any) -> Any:
        due, first = look(*args, **kwargs)
        if early.id not in due:  # another master's shards (a cluster)
            return due, first
        assert due == [early.id] and first == stale
        assert [e["kind"] for e in early.record()["moves"]] == ["flag"]  # settled first, by a read (R-T1)
        return [], first

    monkeypatch.setattr(store, "look", settled_by_another)
    one = sweeper.Sweeper(store, beats=False)
    try:
        assert one.sweep(fake_clock()) == 0
        assert one.next == store.deadline(late.id) != stale
    finally:
        one.close()


def test_many_sweepers_at_once_apply_each_flag_once(new_match: NewMatch, fake_clock: FakeClock, store: Store) -> None:
    matches = [new_match("catchup", {"size": 3}, clock={"turn_s": 1, "bank_s": 0}) for _ in range(5)]
    fake_clock.advance(1.5)
    barrier = threading.Barrier(8)

    def sweep() -> None:
        barrier.wait()
        sweeper.sweep_once(store, fake_clock())

    threads = [threading.Thread(target=sweep) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for m in matches:
        assert [e["kind"] for e in m.record()["moves"]] == ["flag"]


def test_sweeper_forgets_deadlines_of_vanished_matches(store: Store, fake_clock: FakeClock) -> None:
    store.r.zadd(store.deadlines_of("00ghostghostghostg"), {"00ghostghostghostg": START_MS - 10})
    sweeper.sweep_once(store, fake_clock())
    assert store.deadline("00ghostghostghostg") is None


# -- Crystal Connector: R-X6 -------------------------------------------------------------


def crystal(new_match: NewMatch, **clock: Any) -> Match:
    return new_match("crystal", CRYSTAL, clock={"turn_s": 1, "bank_s": 1, **clock})


def test_crystal_flag_opens_the_proxy_window_and_the_opponent_moves(new_match: NewMatch, fake_clock: FakeClock) -> None:
    m = crystal(new_match)
    assert m.created["clock"]["on_flag"] == "proxy"  # the crystal preset's rule, kept under the override
    fake_clock.advance(2.5)  # seat 1 (to shift first) flags at 2.0 s + 1 ms
    r = m.get()
    clock = r.json["clock"]
    assert clock["proxy"] is True and clock["to_move"] == 1 and clock["may_move"] == 0
    assert clock["deadline"] == at(3.0)  # flag time + one turn timer
    assert clock["seats"]["1"]["bank_s"] == 0
    state = r.json["state"]
    # the flagged seat itself may not move any more; the opponent may, for it
    refused = m.move(1, a_turn(state), 0)
    assert (refused.status_code, refused.json["error"]["details"]["proxy"]) == (403, True)
    ok = m.move(0, a_turn(state), 0)
    assert ok.status_code == 200 and ok.json["state"]["to_move"] == 0 and ok.json["clock"]["proxy"] is False
    flag, move = m.record()["moves"]
    assert (flag["kind"], flag["seat"], flag["at"]) == ("flag", 1, at(2.0))
    assert (move["kind"], move["seat"], move["by"], move["proxy"]) == ("move", 1, 0, True)
    assert "seat 0 for seat 1 (R-X6)" in m.record()["text"]


def test_a_proxys_illegal_move_never_forfeits_the_flagged_seat(client: Any, fake_clock: FakeClock) -> None:
    """R-X6 under the ``forfeit`` policy: the opponent moving for a flagged seat
    cannot make it lose by sending an illegal move on its behalf; the attempt is
    refused and kept, and the opponent may still move for it in the window."""
    body = {"game": "crystal", "options": CRYSTAL, "clock": {"turn_s": 1, "bank_s": 1}, "illegal": "forfeit"}
    made = client.post("/v1/matches", json=body).json
    m = Match(client, made["match_id"], (made["seats"]["0"], made["seats"]["1"]), made)
    fake_clock.advance(2.5)  # seat 1 flags; seat 0 may move for it
    state = m.get().json["state"]
    refused = m.move(0, "Z9", 0)
    assert refused.status_code == 422 and refused.json["error"]["code"] == "bad_shift"
    assert refused.json["state"]["status"] == "ongoing" and refused.json["events"] == []
    assert m.get().json["clock"]["proxy"] is True  # the window is still open
    attempt = m.record()["moves"][-1]
    assert (attempt["kind"], attempt["seat"], attempt["by"], attempt["forfeit"]) == ("illegal", 1, 0, False)
    ok = m.move(0, a_turn(state), 0)
    assert ok.status_code == 200 and ok.json["state"]["status"] == "ongoing"
    # the seat's own illegal move still forfeits, once it is its turn again
    own = m.move(0, "Z9", 1)
    assert own.status_code == 422 and (own.json["state"]["end"], own.json["state"]["winner"]) == ("illegal", 1)


def test_crystal_proxy_window_lapses_and_the_turn_passes(new_match: NewMatch, fake_clock: FakeClock) -> None:
    m = crystal(new_match)
    fake_clock.advance(3.5)  # flag at 2.0, window ends at 3.0: the turn passed with no shifts
    r = m.get()
    state, clock = r.json["state"], r.json["clock"]
    assert state["ply"] == 1 and state["to_move"] == 0 and state["turns"] == [0, 1]
    assert state["scores"][0] > 0 and state["scores"][1] > 0  # R-X6: the passed turn is scored as usual (R-X3)
    assert clock["proxy"] is False and clock["turn_started"] == at(3.0)
    kinds = [(e["kind"], e["seat"], e["at"]) for e in m.record()["moves"]]
    assert kinds == [("flag", 1, at(2.0)), ("pass", 1, at(3.0))]
    # seat 0 moves; then seat 1, the timed-out player, has the plain turn timer only (R-X6)
    fake_clock.advance(0.1)
    r = m.move(0, a_turn(state), 1)
    assert r.json["clock"]["deadline"] == at(3.6 + 1)


def test_crystal_cannot_be_set_to_lose_on_flag(client: FlaskClient) -> None:
    # R-X6 is Crystal's rule; its engine has no "lost on time" end, so the override is refused
    r = client.post("/v1/matches", json={"game": "crystal", "options": CRYSTAL, "clock": {"on_flag": "loses"}})
    assert (r.status_code, r.json["error"]["details"]["field"]) == (422, "clock.on_flag")


def test_catchup_with_proxy_flag_loses_when_the_window_lapses(new_match: NewMatch, fake_clock: FakeClock) -> None:
    # on_flag proxy for a game whose own flag rule is "loses": the opponent may move for the
    # flagged seat; if nobody does, the game's timeout applies (Catchup: the flagged seat loses).
    m = new_match("catchup", {"size": 3}, clock={"turn_s": 1, "bank_s": 0, "on_flag": "proxy"})
    fake_clock.advance(1.5)
    assert m.get().json["clock"]["may_move"] == 1
    fake_clock.advance(1.0)
    state = m.state()
    assert (state["end"], state["winner"]) == ("flag", 1)


def test_sweeper_puts_a_wrong_deadline_right(new_match: NewMatch, fake_clock: FakeClock, store: Store) -> None:
    m = new_match("catchup", {"size": 3}, clock={"turn_s": 10, "bank_s": 0})
    store.r.zadd(store.deadlines_of(m.id), {m.id: START_MS - 5})  # an entry that disagrees with its match
    assert sweeper.sweep_once(store, fake_clock()) == 1
    assert store.deadline(m.id) == START_MS + 10_000
    assert m.record()["moves"] == [] and m.state()["status"] == "ongoing"
    assert sweeper.sweep_once(store, fake_clock()) == 0


def test_crystal_draft_time_out_makes_the_default_choice_and_the_record_replays(
    client: FlaskClient, new_match: NewMatch, fake_clock: FakeClock
) -> None:
    m = new_match("crystal", {"seed": "draft"}, clock={"turn_s": 1, "bank_s": 1})
    assert m.created["state"]["phase"] == "pick_order"
    fake_clock.advance(3.5)  # flag at 2.0; the proxy window ends unused at 3.0
    state = m.state()
    assert state["ply"] == 1 and state["phase"] != "pick_order"
    rec = m.record()
    flag, passed = rec["moves"]
    assert (flag["kind"], passed["kind"], passed["at"]) == ("flag", "pass", at(3.0))
    assert passed["move"] in ("first", "second")  # R-X1: player 0's first decision, made by default
    lines = [ln.split(" {")[0] for ln in rec["text"].splitlines() if ln[:1].isdigit()]
    assert lines == [f"1. {passed['move']}"]
    replay = client.post("/v1/games/crystal/replay", json={"options": rec["options"], "moves": [passed["move"]]})
    assert replay.json["state"] == state
