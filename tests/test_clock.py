"""Clock arithmetic (engine/clock.py): RULES R-T1, R-T2 and R-X6's timing, with exact injected times."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.clock import ClockSpec, MatchClock, round_up, spec_from
from engine.errors import BadOptions
from engine.registry import GAMES, PRESETS

S = 1000  # ms in a second


def test_presets_are_the_r_t2_table() -> None:
    # R-T2, read row by row from RULES.md
    table = {
        "catchup": (60, 300, 1, "loses"),
        "catchup-short-bank": (60, 180, 1, "loses"),
        "bug": (90, 600, 10, "loses"),
        "bug-green-meadow": (60, 300, 5, "loses"),
        "crystal": (90, 180, 1, "proxy"),
    }
    r_t2 = {k: (v.turn_ms // S, v.bank_ms // S, v.step_ms // S, v.on_flag) for k, v in PRESETS.items() if k in table}
    assert r_t2 == table


def test_each_game_declares_its_presets_and_flag_rule() -> None:
    # every game has a preset of its own, and each preset's on_flag is what a flag does in that game (R-T1, R-X6)
    for game in GAMES.values():
        assert game.presets, game.name
        for name, spec in game.presets.items():
            assert PRESETS[name] is spec
            assert spec.on_flag == game.flag_rule, (game.name, name)


@pytest.mark.parametrize(
    ("game", "options", "preset"),
    [
        ("catchup", {}, "catchup"),
        ("bug", {"variant": "genius"}, "bug"),
        ("bug", {"variant": "green-meadow"}, "bug-green-meadow"),
        ("crystal", {}, "crystal"),
    ],
)
def test_default_preset_per_game(game: str, options: dict[str, str], preset: str) -> None:
    # API.md: a missing clock is the game's preset (Bug's depends on the variant)
    assert GAMES[game].default_preset(options) == preset


def test_clock_read_from_preset_name_object_or_nothing() -> None:
    assert spec_from(None, "bug", PRESETS) == PRESETS["bug"]
    assert spec_from("catchup-short-bank", "bug", PRESETS) == PRESETS["catchup-short-bank"]
    # fields left out come from the game's default preset (R-T2 "any field may be overridden")
    assert spec_from({"turn_s": 1, "bank_s": 1.5}, "bug", PRESETS) == ClockSpec(1 * S, 1500, 10 * S, "loses")
    assert spec_from({"preset": "crystal", "step_s": 0.25}, "catchup", PRESETS) == ClockSpec(90 * S, 180 * S, 250, "proxy")
    assert spec_from({"on_flag": "proxy", "bank_s": 0}, "catchup", PRESETS) == ClockSpec(60 * S, 0, 1 * S, "proxy")


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ("blitz", "clock"),
        (42, "clock"),
        ({"turn": 5}, "clock.turn"),
        ({"preset": "blitz"}, "clock.preset"),
        ({"turn_s": 0}, "clock.turn_s"),
        ({"turn_s": True}, "clock.turn_s"),
        ({"turn_s": "60"}, "clock.turn_s"),
        ({"bank_s": -1}, "clock.bank_s"),
        ({"step_s": 0}, "clock.step_s"),
        ({"turn_s": 10**9}, "clock.turn_s"),
        ({"on_flag": "draw"}, "clock.on_flag"),
    ],
)
def test_bad_clocks_name_the_field(raw: object, field: str) -> None:
    with pytest.raises(BadOptions) as e:
        spec_from(raw, "catchup", PRESETS)
    assert e.value.field == field


def test_round_up_to_the_step() -> None:
    assert [round_up(x, 1000) for x in (0, 1, 999, 1000, 1001)] == [0, 1000, 1000, 1000, 2000]
    assert round_up(11_000, 10_000) == 20_000  # Bug's 10 s step: 11 s over costs 20 s


def clock(turn: float, bank: float, step: float, on_flag: str = "loses", mover: int = 0, start: int = 0) -> MatchClock:
    return MatchClock.start(ClockSpec(round(turn * S), round(bank * S), round(step * S), on_flag), mover, start)


def test_time_within_the_turn_costs_the_bank_nothing() -> None:
    c = clock(60, 300, 1)
    charge = c.charge(60 * S)  # exactly the allowance
    assert (charge.used_ms, charge.charged_ms, charge.bank_left_ms) == (60 * S, 0, 300 * S)


def test_overrun_is_taken_from_the_bank_rounded_up_to_the_step() -> None:
    # R-T1: 0.3 s past the allowance with a 1 s step costs 1 s
    assert clock(60, 300, 1).charge(60_300).charged_ms == 1 * S
    # Bug preset: 11 s past the 90 s allowance with a 10 s step costs 20 s, leaving 580 s
    c = clock(90, 600, 10)
    assert (c.charge(101 * S).charged_ms, c.charge(101 * S).bank_left_ms) == (20 * S, 580 * S)
    # exactly one step over costs one step, not two
    assert c.charge(100 * S).charged_ms == 10 * S


def test_deadline_and_the_first_millisecond_of_the_flag() -> None:
    c = clock(60, 300, 1, start=5_000)
    assert c.deadline == 5_000 + 360 * S
    # a bank that exactly covers the overrun is not a flag ("cannot cover" is R-T1's test)
    assert not c.due(5_000 + 360 * S)
    assert c.charge(5_000 + 360 * S).bank_left_ms == 0
    assert c.due(5_000 + 360 * S + 1)


def test_a_bank_that_is_not_whole_steps_pays_what_it_holds() -> None:
    c = clock(1, 1.5, 1)  # an override: bank 1.5 s, step 1 s
    # 1.4 s over: in time (the bank covers 1.4 s), rounding up asks 2 s, the bank pays all its 1.5 s
    assert not c.due(2_400)
    charge = c.charge(2_400)
    assert (charge.charged_ms, charge.bank_left_ms) == (1_500, 0)


def test_after_a_move_the_bank_is_charged_and_the_other_seat_starts() -> None:
    c = clock(1, 3, 1, mover=0, start=0)
    c2, charge = c.after_move(1_200, next_mover=1)  # 0.2 s over -> 1 s from the bank
    assert charge.charged_ms == 1 * S
    assert c2.banks == (2 * S, 3 * S) and c2.mover == 1 and c2.turn_start == 1_200
    assert c2.deadline == 1_200 + 1 * S + 3 * S


def test_flag_that_loses_stops_the_clocks_at_the_deadline() -> None:
    c = clock(1, 2, 1, mover=1, start=100)
    f = c.flag()
    assert f.mover is None and f.banks == (2 * S, 0) and f.turn_start == 100 + 3 * S
    assert f.deadline is None and not f.due(10**12)


def test_r_x6_proxy_window_lasts_one_turn_timer_then_the_turn_passes() -> None:
    c = clock(90, 180, 1, "proxy", mover=0, start=0)
    flagged = c.flag()
    # the window opens at the flag (the deadline) and lasts one turn timer
    assert flagged.proxy and flagged.mover == 0 and flagged.turn_start == 270 * S
    assert flagged.deadline == 360 * S
    # a proxy move costs the spent bank nothing
    assert flagged.charge(300 * S).charged_ms == 0
    lapsed = flagged.lapse(next_mover=1)
    assert not lapsed.proxy and lapsed.mover == 1 and lapsed.turn_start == 360 * S
    # R-X6: the timed-out seat keeps the plain turn timer: its next deadline has no bank in it
    back, _ = lapsed.after_move(400 * S, next_mover=0)
    assert back.banks[0] == 0 and back.deadline == 400 * S + 90 * S


def test_stored_form_round_trips() -> None:
    c = clock(1.5, 2.25, 0.5, "proxy", mover=1, start=123).flag()
    assert MatchClock.from_json(c.to_json()) == c


@settings(max_examples=200, deadline=None)
@given(
    turn=st.integers(1, 5_000),
    bank=st.integers(0, 10_000),
    step=st.integers(1, 3_000),
    used=st.lists(st.integers(0, 20_000), min_size=1, max_size=20),
)
def test_bank_never_grows_and_moves_are_in_time_exactly_until_the_deadline(
    turn: int, bank: int, step: int, used: list[int]
) -> None:
    c = MatchClock.start(ClockSpec(turn, bank, step, "loses"), 0, 0)
    now = 0
    for u in used:
        mover = c.mover
        assert mover is not None
        assert c.deadline is not None
        now += u
        # R-T1: in time iff the bank covers the overrun
        assert c.due(now) == (max(0, u - turn) > c.banks[mover])
        if c.due(now):
            return
        before = c.banks[mover]
        c, charge = c.after_move(now, 1 - mover)
        assert 0 <= charge.bank_left_ms == c.banks[mover] <= before
        # what the bank paid is whole steps, or everything it had
        assert charge.charged_ms % step == 0 or charge.bank_left_ms == 0
        assert charge.charged_ms >= max(0, u - turn)


def test_an_increment_is_added_to_the_bank_after_each_move() -> None:
    # a Fischer increment beside R-T1: the bank pays the overrun (rounded up to the step), then gains the increment
    spec = spec_from({"preset": "catchup", "bank_s": 10, "increment_s": 2}, "catchup", PRESETS)
    assert spec.increment_ms == 2000 and spec.to_json()["increment_s"] == 2.0
    clock = MatchClock.start(spec, 0, 0)
    clock, charge = clock.after_move(61_500, 1)  # 1.5 s over the 60 s turn: 2 s off the bank, then +2 s
    assert (charge.charged_ms, charge.bank_left_ms, clock.banks) == (2000, 10_000, (10_000, 10_000))
    clock, _ = clock.after_move(61_500 + 5_000, 0)  # well inside the turn: +2 s
    assert clock.banks == (10_000, 12_000)
    final, charge = clock.after_move(61_500 + 6_000, None)  # the game's last move: no increment
    assert final.banks == (10_000, 12_000) and charge.bank_left_ms == 10_000
    assert MatchClock.from_json(clock.to_json()) == clock


# -- the umpire's controls (issue 22): pause, resume, start, add time ------------------------

T = 1_800_000_000_000
SPEC20 = ClockSpec(turn_ms=20 * S, bank_ms=60 * S, step_ms=S, on_flag="loses")


def test_a_pause_freezes_the_turn_and_a_resume_restores_it_to_the_millisecond() -> None:
    clock = MatchClock.start(SPEC20, 0, T)
    assert clock.deadline == T + 80 * S  # R-T1: turn + bank
    paused = clock.pause(T + 7_250)
    assert paused.deadline is None and not paused.due(T + 10**9)  # no flag while paused
    assert paused.paused and paused.used(T + 500_000) == 7_250
    resumed = paused.resume(T + 307_250)  # five minutes later
    assert resumed.turn_start == T + 300_000 and resumed.deadline == T + 380_000  # the same 72.75 s left
    assert resumed.used(T + 310_000) == 10_000
    _, charge = resumed.after_move(T + 300_000 + 25_400, 1)
    assert (charge.used_ms, charge.charged_ms, charge.bank_left_ms) == (25_400, 6 * S, 54 * S)  # 5.4 s over: 6 steps (R-T1)


def test_a_pause_in_an_r_x6_window_keeps_the_window_left() -> None:
    proxy = ClockSpec(turn_ms=20 * S, bank_ms=0, step_ms=S, on_flag="proxy")
    flagged = MatchClock.start(proxy, 1, T).flag()
    assert flagged.proxy and flagged.deadline == T + 40 * S
    back = flagged.pause(T + 25 * S).resume(T + 95 * S)
    assert back.proxy and back.deadline == T + 110 * S  # 15 s of the window were left, and are again


def test_a_clock_waiting_for_its_start_has_no_deadline_and_starts_with_a_whole_turn() -> None:
    waiting = MatchClock.start(SPEC20, 0, T, running=False)
    assert not waiting.started and not waiting.paused and waiting.deadline is None
    started = waiting.resume(T + 11_000)  # the umpire starts it 11 s after creation
    assert started.started and started.turn_start == T + 11_000 and started.deadline == T + 91_000


def test_with_first_move_the_first_move_is_untimed_and_the_next_turn_runs_from_it() -> None:
    waiting = MatchClock.start(SPEC20, 0, T, running=False)
    after, charge = waiting.after_move(T + 500_000, 1)  # long after creation: nothing charged
    assert (charge.used_ms, charge.charged_ms, charge.bank_left_ms) == (0, 0, 60 * S)
    assert after.started and after.running and after.turn_start == T + 500_000 and after.deadline == T + 580_000


def test_time_given_to_the_running_seat_moves_its_deadline() -> None:
    clock = MatchClock.start(SPEC20, 0, T)
    given_ = clock.add_time(0, 30 * S)
    assert given_.banks == (90 * S, 60 * S) and given_.deadline == T + 110 * S
    other = clock.add_time(1, 1_500)
    assert other.banks == (60 * S, 61_500) and other.deadline == T + 80 * S


def test_the_storage_form_of_a_running_clock_is_unchanged_and_a_paused_one_round_trips() -> None:
    clock = MatchClock.start(SPEC20, 0, T)
    assert set(clock.to_json()) == {"spec", "banks", "mover", "turn_start", "proxy"}  # what matches in Redis hold
    for c in (clock.pause(T + 5), MatchClock.start(SPEC20, 0, T, running=False)):
        assert MatchClock.from_json(c.to_json()) == c
