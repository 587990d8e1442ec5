"""The record's typed entries and the referee's sealed results, without Redis
(service/matches/record.py, service/matches/referee.py).  Times are exact
milliseconds from a fixed start (RULES R-T1)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from engine.clock import ClockSpec, MatchClock
from engine.registry import GAMES
from service.matches import referee
from service.matches.answers import answer_of
from service.matches.description import describe, describe_step
from service.matches.jsontext import compact, parse_json
from service.matches.match import Live, Meta
from service.matches.record import Entry, entries_of, last_step, walk
from service.matches.referee import Accepted, Ended, Forfeit, Refused

T0 = 1_800_000_000_000
SPEC = ClockSpec(turn_ms=1000, bank_ms=3000, step_ms=1000, on_flag="loses")
GAME = GAMES["catchup"]

# The storage form as matches already in Redis hold it, one of each kind: each must read,
# and write back, to the very same text.
STORED = [
    '{"k":"move","p":0,"s":0,"b":0,"m":"A1","ts":1800000000000,"t":1800000002500,"x":0,"u":2500,"c":2000,"l":1000,'
    '"bk":[1000,3000]}',
    '{"k":"move","p":1,"s":1,"b":1,"m":"B2","ts":1800000002500,"t":1800000003000,"x":0,"u":500,"c":0,"l":3000,'
    '"bk":[1000,3000],"o":1}',
    '{"k":"move","p":2,"s":0,"b":1,"m":"C3","ts":1800000004000,"t":1800000004200,"x":1,"u":200,"c":0,"l":0,"bk":[0,3000]}',
    '{"k":"flag","p":2,"s":0,"b":null,"m":null,"ts":1800000003000,"t":1800000005000,"w":0,"u":2000,"c":1000,"l":0,"bk":[0,3000]}',
    '{"k":"flag","p":2,"s":0,"b":null,"m":null,"ts":1800000003000,"t":1800000005000,"w":1,"u":2000,"c":1000,"l":0,"bk":[0,3000]}',
    '{"k":"pass","p":2,"s":0,"b":null,"m":null,"ts":1800000005000,"t":1800000006000,"x":1,"u":1000,"c":0,"l":0,"bk":[0,3000]}',
    '{"k":"pass","p":0,"s":0,"b":null,"m":"D4","ts":1800000005000,"t":1800000006000,"x":1,"u":1000,"c":0,"l":0,"bk":[0,3000]}',
    '{"k":"resign","p":2,"s":1,"b":1,"m":null,"ts":1800000003000,"t":1800000003400,"u":0,"c":0,"l":3000,"bk":[1000,3000]}',
    '{"k":"illegal","p":2,"s":0,"b":0,"m":"Z9","ts":1800000003000,"t":1800000003100,'
    '"e":{"code":"off_board","message":"Z9 is off the board."},"f":0,"bk":[1000,3000]}',
    '{"k":"illegal","p":2,"s":0,"b":0,"m":"Z9","ts":1800000003000,"t":1800000003100,'
    '"e":{"code":"off_board","message":"Z9 is off the board."},"f":1,"bk":[1000,3000]}',
    '{"k":"abort","p":2,"s":0,"b":null,"m":null,"ts":1800000003000,"t":1800000003300,"bk":[1000,3000]}',
]


def parsed(text: str) -> Entry:
    return Entry.from_json(parse_json(text))


@pytest.mark.parametrize("text", STORED, ids=lambda t: json.loads(t)["k"])
def test_every_stored_kind_reads_and_writes_back_the_same_text(text: str) -> None:
    entry = parsed(text)
    assert compact(entry.to_json()) == text
    assert Entry.from_json(entry.to_json()) == entry


def test_a_stored_entry_becomes_typed_fields() -> None:
    e = parsed(STORED[0])
    assert (e.kind, e.ply, e.seat, e.by, e.move) == ("move", 0, 0, 0, "A1")
    assert (e.turn_started, e.at, e.used, e.charged, e.left, e.banks) == (T0, T0 + 2500, 2500, 2000, 1000, (1000, 3000))
    assert e.proxy is False and e.window is None and not e.book


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown kind"):
        Entry.from_json({"k": "teleport", "p": 0, "s": 0, "b": None, "m": None, "ts": 0, "t": 0, "bk": [0, 0]})


@pytest.mark.parametrize(
    ("index", "word"),
    [(0, "A1"), (1, "B2"), (2, "C3"), (3, "timeout"), (4, None), (5, "timeout"), (6, "D4"), (7, "resign 1"),
     (8, None), (9, "forfeit 0"), (10, "abort")],
)  # fmt: skip
def test_the_replay_word_of_each_kind(index: int, word: str | None) -> None:
    """What `replay` reads back (engine/game.py record_step): moves and the reserved words;
    a flag that only opened R-X6's window and a refused attempt changed nothing."""
    assert parsed(STORED[index]).replay_word() == word


def test_the_clock_after_a_move_starts_the_next_turn_at_the_move() -> None:
    clock = parsed(STORED[0]).clock_after(SPEC, 1)
    assert clock == MatchClock(SPEC, (1000, 3000), 1, T0 + 2500, False)
    assert clock.deadline == T0 + 2500 + 1000 + 3000  # R-T1: turn and the mover's bank


def test_the_clock_after_a_refused_attempt_runs_on_from_the_turns_start() -> None:
    clock = parsed(STORED[8]).clock_after(SPEC, 0)
    assert clock == MatchClock(SPEC, (1000, 3000), 0, T0 + 3000, False)
    assert clock.deadline == T0 + 3000 + 1000 + 1000


def test_the_clock_after_a_flag_that_opened_the_window_is_the_opponents_for_one_turn() -> None:
    clock = parsed(STORED[4]).clock_after(SPEC, 0)
    assert clock == MatchClock(SPEC, (0, 3000), 0, T0 + 5000, True)
    assert clock.deadline == T0 + 5000 + 1000  # R-X6: the window lasts one turn timer


@pytest.mark.parametrize("index", [3, 7, 9, 10])
def test_the_clock_after_an_end_has_stopped(index: int) -> None:
    e = parsed(STORED[index])
    assert e.clock_after(SPEC, None) == MatchClock(SPEC, e.banks, None, e.at, False)


def test_the_public_form_in_seconds() -> None:
    out = parsed(STORED[0]).public([])
    assert (out["used_s"], out["bank_charged_s"], out["bank_left_s"], out["proxy"]) == (2.5, 2.0, 1.0, False)
    abort = parsed(STORED[10]).public([])
    assert (abort["used_s"], abort["bank_left_s"]) == (0.0, 1.0)  # an abort keeps no time used: the seat's bank


def test_the_text_line_numbers_changes_and_comments_the_rest() -> None:
    assert parsed(STORED[0]).line("loses") == ("A1", "seat 0, 2.5 s, bank 1 s, 2027-01-15T08:00:02.500Z")
    word, comment = parsed(STORED[8]).line("loses")
    assert word is None and comment.startswith('seat 0 tried "Z9"')


# -- sealed results ------------------------------------------------------------------


def meta(illegal: str = "reject") -> Meta:
    return Meta("00abcdefghijklmnop", GAME.name, {"size": 3}, T0, ("a" * 64, "b" * 64), SPEC, illegal=illegal)


def fresh() -> Live:
    return referee.start(GAME, GAME.new({"size": 3}), SPEC, T0)


def answered(m: Meta, before: Live, result: referee.Result) -> dict[str, Any]:
    """The HTTP answer to a result once committed: its description, written (service/matches/answers.py)."""
    return answer_of(describe(m, result.entry, before.state, result.live.state, result.events))


def test_a_legal_move_is_accepted_with_its_answer_and_charge() -> None:
    result = referee.judge(GAME, meta(), fresh(), 0, "A1", T0 + 2500)
    assert isinstance(result, Accepted)
    answer = answered(meta(), fresh(), result)
    e = result.entry
    assert (e.kind, e.used, e.charged, e.left) == ("move", 2500, 2000, 1000)  # 1.5 s over the turn: 2 steps (R-T1)
    assert result.live.clock == MatchClock(SPEC, (1000, 3000), 1, T0 + 2500, False)
    assert answer["legal"] is True and answer["move"] == "A1"
    assert answer["clock"]["seats"]["0"]["bank_s"] == 1.0
    assert result.events == answer["events"]


def test_an_illegal_move_is_refused_and_changes_nothing_under_reject() -> None:
    live = fresh()
    result = referee.judge(GAME, meta(), live, 0, "Z9", T0 + 100)
    assert isinstance(result, Refused)
    assert result.entry.kind == "illegal" and result.entry.forfeit is False
    assert result.live == replace(live, refused=1)  # unchanged but for the turn's count of refused attempts
    answer = answered(meta(), live, result)
    assert answer["legal"] is False and answer["error"]["code"] == result.entry.error["code"]  # type: ignore[index]
    assert answer["clock"]["seats"]["0"]["remaining_s"] == 3.9  # the turn runs on: 4 s less 0.1 s
    assert answer["events"] == [] and answer["state"] == live.state


def test_an_illegal_move_forfeits_under_forfeit_through_the_finisher() -> None:
    result = referee.judge(GAME, meta("forfeit"), fresh(), 0, "Z9", T0 + 100)
    assert isinstance(result, Forfeit)
    state = result.live.state
    assert (state["status"], state["winner"], state["end"]) == ("finished", 1, "illegal")
    assert result.live.clock == MatchClock(SPEC, (3000, 3000), None, T0 + 100, False)
    assert result.live.finished_ms == T0 + 100
    answer = answered(meta("forfeit"), fresh(), result)
    assert answer["legal"] is False and answer["events"] == result.events


def test_a_resignation_and_an_abort_end_through_the_finisher() -> None:
    resigned = referee.resign(GAME, meta(), fresh(), 1, T0 + 400)
    assert isinstance(resigned, Ended)
    assert (resigned.live.state["winner"], resigned.live.state["end"]) == (0, "resign")
    assert resigned.entry.used == 0  # seat 1's turn was not running
    answer = answered(meta(), fresh(), resigned)
    assert answer["events"] == resigned.events and answer["clock"]["to_move"] is None
    aborted = referee.abort(GAME, meta(), fresh(), T0 + 300)
    assert (aborted.live.state["winner"], aborted.live.state["end"]) == (None, "aborted")
    assert aborted.live.clock == MatchClock(SPEC, (3000, 3000), None, T0 + 300, False)


def test_a_flag_that_loses_ends_through_the_finisher_dated_at_the_deadline() -> None:
    live, entries = referee.settle(GAME, fresh(), T0 + 4001)
    assert [e.kind for e in entries] == ["flag"]
    assert (entries[0].at, entries[0].used, entries[0].charged, entries[0].banks) == (T0 + 4000, 4000, 3000, (0, 3000))
    assert live.clock == MatchClock(SPEC, (0, 3000), None, T0 + 4000, False)
    assert (live.state["winner"], live.state["end"], live.finished_ms) == (1, "flag", T0 + 4000)


def test_a_first_answer_equals_the_answer_rebuilt_from_the_record() -> None:
    """What a retry relies on: the answer is a function of the record entry and the states around it."""
    m, live = meta(), fresh()
    result = referee.judge(GAME, m, live, 0, "A1", T0 + 700)
    assert isinstance(result, Accepted)
    stored = entries_of([compact(result.entry.to_json())])
    rebuilt = describe_step(GAME, m, last_step(GAME, m, stored))
    assert compact(answer_of(rebuilt)) == compact(answered(m, live, result))


# -- the umpire's controls (issue 22) ---------------------------------------------------


def test_every_control_round_trips_and_only_adjudicate_changes_the_game() -> None:
    m, live = meta(), fresh()
    paused = referee.control(GAME, m, live, "pause", T0 + 7250)
    given = referee.control(GAME, m, paused.live, "add_time", T0 + 8000, seat=1, ms=30_000)
    resumed = referee.control(GAME, m, given.live, "resume", T0 + 9000)
    token = referee.control(GAME, m, resumed.live, "token", T0 + 9500, seat=0)
    judged = referee.adjudicate(GAME, m, token.live, None, "agreed", T0 + 9600)
    made = [paused.entry, given.entry, resumed.entry, token.entry, judged.entry]
    for e in made:
        assert Entry.from_json(parse_json(compact(e.to_json()))) == e
    assert [e.replay_word() for e in made] == [None, None, None, None, "adjudicate draw"]
    assert given.entry.to_json()["a"] == 30_000 and given.live.clock.banks == (3000, 33_000)
    # the clocks a control leaves are kept in its entry: paused at 7.25 s, then 1.75 s later running again
    assert paused.entry.clock_after(SPEC, 0) == paused.live.clock and paused.live.clock.deadline is None
    assert resumed.entry.clock_after(SPEC, 0).deadline == T0 + 1750 + 4000
    assert (judged.live.state["end"], judged.live.state["winner"]) == ("adjudicated", None)
    steps = list(walk(GAME, m, made))
    assert [s.after is s.before for s in steps] == [True, True, True, True, False]
    assert steps[1].events == [{"type": "umpire", "action": "add_time", "seat": 1, "seconds": 30.0}]
