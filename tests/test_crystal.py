"""Crystal Connector rules (seed 003; RULES R-H5, R-X1 to R-X6), on drawn grids.

Every grid is drawn as six rows, top first, columns A-F left to right (R-H5):
``R B G Y`` crystals (lower case: spiked), ``*`` bomb, ``@`` chameleon, ``+``
pylon, ``#`` rock.  Each test works out its expected group sizes, products,
thresholds and illegal moves in the comments, by hand, from the rules.

A turn of three shifts of one column by 2 ("A up 2, A up 2, A up 2") moves it
6 cells, all the way round: the grid is unchanged, so such a turn scores the
drawn grid exactly as drawn.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from engine.errors import IllegalMove
from engine.games.crystal.rules import Crystal, CrystalState, shifts_due, threshold

GAME = Crystal()
IDENTITY_A = "A up 2, A up 2, A up 2"  # column A round the whole way: grid unchanged
IDENTITY_B = "B down 3, B up 1, B up 2"  # column B down 3, then up 3: unchanged

# All groups are single cells: horizontal neighbours differ by one colour, vertical by two.
LATIN = [
    "RBGYRB",
    "GYRBGY",
    "RBGYRB",
    "GYRBGY",
    "RBGYRB",
    "GYRBGY",
]


def setup(
    grid: list[str], colors: Any = (("red", "green"), ("blue", "yellow")), first: int = 0, anomalies: Any = ()
) -> CrystalState:
    return GAME.new({"grid": grid, "colors": [list(c) for c in colors], "first": first, "anomalies": list(anomalies)})


def play(state: CrystalState, move: str) -> tuple[CrystalState, list[dict[str, Any]]]:
    verdict = GAME.play(state, move)
    assert verdict.legal, verdict.error
    return verdict.state, verdict.events


def refused(state: CrystalState, move: str) -> IllegalMove:
    verdict = GAME.play(state, move)
    assert not verdict.legal
    assert verdict.state == state
    assert verdict.error is not None
    return verdict.error  # type: ignore[return-value]


def score_events(events: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    return {e["player"]: e for e in events if e["type"] == "score"}


def with_fields(state: CrystalState, **changes: Any) -> CrystalState:
    """``state`` with some JSON fields changed, loaded (so checked); shifts_due
    follows from the changes, so it is taken from a state made the same way."""
    data = GAME.dump(state)
    data.update(changes)
    data["shifts_due"] = GAME.shifts_due(replace(state, turns=tuple(data["turns"]), to_move=data["to_move"]))
    return GAME.load(data)


def test_identity_helpers_really_are_identities() -> None:
    state = setup(LATIN)
    after, _ = play(state, IDENTITY_A)
    assert GAME.dump(after)["board"] == LATIN
    after, _ = play(after, IDENTITY_B)
    assert GAME.dump(after)["board"] == LATIN


# -- R-X3: the seed's example ------------------------------------------------------------

# Player 0 red+green, player 1 blue+yellow.
SEED_EXAMPLE = [
    "RRRRBG",  # red: A1 B1 C1 D1 + A2 D2 + A3 = 7 (one group); F4 F5 = 2
    "RYYRGB",  # green: E2 E3 D3 D4 D5 = 5; F1, B4, A6, C6 alone
    "RBYGGY",  # yellow: B2 C2 C3 C4 = 4; E5 E6 = 2; F3, A5, B6 alone
    "BGYGBR",  # blue: B5 C5 = 2; E1 F2 B3 A4 E4 D6 F6 alone
    "YBBGYR",
    "GYGBYB",
]


def test_seed_example_red_7_green_5_scores_35_yellow_4_blue_2_scores_8() -> None:  # R-X3, seed 003 "Example"
    state = setup(SEED_EXAMPLE)
    after, events = play(state, IDENTITY_A)
    scored = score_events(events)
    assert scored[0]["largest"] == {"red": 7, "green": 5}
    assert scored[0]["points"] == 35
    assert scored[1]["largest"] == {"blue": 2, "yellow": 4}
    assert scored[1]["points"] == 8
    assert after.scores == (35, 8)  # both players score after every turn


def test_both_players_score_after_each_turn_and_totals_run_on() -> None:  # R-X3
    state = setup(SEED_EXAMPLE)
    state, _ = play(state, IDENTITY_A)
    state, _ = play(state, IDENTITY_B)
    state, _ = play(state, IDENTITY_A)
    assert state.scores == (3 * 35, 3 * 8)
    assert state.turns == (2, 1)


# -- R-X1: the draft -------------------------------------------------------------------------


def test_draft_as_moves() -> None:  # R-X1
    state = GAME.new({"seed": "draft"})
    assert (state.phase, state.to_move) == ("pick_order", 0)
    state, _ = play(state, "second")  # player 0: player 1 picks a colour first
    assert (state.phase, state.to_move) == ("pick_one", 1)
    state, _ = play(state, "Yellow")
    assert (state.phase, state.to_move) == ("pick_two", 0)
    state, events = play(state, "green, red")  # two of the remaining three; player 1 gets the last (blue)
    assert (state.phase, state.to_move) == ("move_order", 1)
    assert GAME.dump(state)["colors"] == [["red", "green"], ["blue", "yellow"]]
    assert events[-1] == {"type": "pick", "player": 1, "colors": ["blue"], "last": True}
    state, _ = play(state, "second")  # player 1: player 0 shifts first
    assert (state.phase, state.to_move, state.first) == ("shift", 0, 0)
    assert state.ply == 4
    assert GAME.shifts_due(state) == 3


def test_draft_first_means_the_speaker() -> None:  # R-X1
    state = GAME.new({"seed": "draft"})
    state, _ = play(state, "first")
    assert state.to_move == 0  # player 0 picks first
    state, _ = play(state, "blue")
    state, _ = play(state, ["red", "yellow"])  # the structured form
    assert GAME.dump(state)["colors"] == [["blue", "green"], ["red", "yellow"]]
    state, _ = play(state, "first")  # player 1 shifts first
    assert (state.first, state.to_move) == (1, 1)


def test_draft_notation_is_normalised() -> None:
    state = GAME.new({"seed": "draft"})
    state, _ = play(state, "FIRST")
    state, _ = play(state, "red")
    verdict = GAME.play(state, "yellow and blue")
    assert verdict.move == "blue yellow"


@pytest.mark.parametrize(
    ("moves", "bad", "code"),
    [
        ([], "red", "wrong_phase"),  # colours before the order is said
        ([], "C up 2, 2 right 3, A down 1", "wrong_phase"),  # no shifts during the draft
        (["first"], "first", "wrong_phase"),
        (["first"], "red blue", "wrong_colour_count"),  # the first picker names one
        (["first", "red"], "red green", "not_in_draft"),  # red is taken
        (["first", "red"], "green green", "not_in_draft"),
        (["first", "red"], "green", "wrong_colour_count"),  # the second picker names two
        (["first", "red", "blue green"], "blue", "wrong_phase"),
    ],
)
def test_draft_errors(moves: list[str], bad: str, code: str) -> None:  # R-X1
    state = GAME.new({"seed": "draft"})
    for m in moves:
        state, _ = play(state, m)
    assert refused(state, bad).code == code


def test_options_skip_the_draft_or_part_of_it() -> None:  # R-X1
    state = GAME.new({"seed": 5, "colors": [["green", "red"], ["yellow", "blue"]]})
    assert (state.phase, state.to_move) == ("move_order", 1)  # player 1 still says who shifts first
    assert GAME.dump(state)["colors"] == [["red", "green"], ["blue", "yellow"]]
    state = GAME.new({"seed": 5, "colors": [["green", "red"], ["yellow", "blue"]], "first": 1})
    assert (state.phase, state.to_move, state.first) == ("shift", 1, 1)


# -- R-X2: shifts -------------------------------------------------------------------------------


def test_shifts_move_everything_on_the_file_and_wrap() -> None:  # R-X2
    state = setup(SEED_EXAMPLE)
    state, events = play(state, "C up 2, 2 right 3, a DOWN 1")
    # C up 2: column C was R Y Y Y B G, becomes Y Y B G R Y (top first).
    # 2 right 3: row 2 was R Y Y R G B (after the first shift), becomes R G B R Y Y.
    # A down 1: column A was R R R B Y G, becomes G R R R B Y.
    assert GAME.dump(state)["board"] == [
        "GRYRBG",
        "RGBRYY",
        "RBBGGY",
        "RGGGBR",
        "BBRGYR",
        "YYYBYB",
    ]
    assert events[0] == {"type": "shifts", "player": 0, "shifts": "C up 2, 2 right 3, A down 1"}
    assert GAME.dump(state)["barred"] == ["A", "C", "2"]


def test_files_the_opponent_shifted_last_turn_are_barred() -> None:  # R-X2
    state = setup(SEED_EXAMPLE)
    state, _ = play(state, "C up 2; 2 right 3; C down 1")  # semicolons separate too
    assert GAME.dump(state)["barred"] == ["C", "2"]
    err = refused(state, "A up 1, c up 1, B up 1")
    assert (err.code, err.step) == ("not_your_file", 1)
    err = refused(state, "2 left 1, A up 1, B up 1")
    assert (err.code, err.step) == ("not_your_file", 0)
    state, _ = play(state, "D up 1, D up 1, 3 left 5")  # the same file several times is fine
    assert GAME.dump(state)["barred"] == ["D", "3"]
    state, _ = play(state, "C up 1, 2 left 1, A up 1")  # only the last turn's files are barred


@pytest.mark.parametrize(
    ("move", "code", "step"),
    [
        ("C up 2, 2 right 3", "wrong_shift_count", None),
        ("C up 2, 2 right 3, A down 1, B up 1", "wrong_shift_count", 3),
        ("C left 2, 2 right 3, A down 1", "bad_shift", 0),  # a column does not shift sideways
        ("C up 2, 2 down 3, A down 1", "bad_shift", 1),  # nor a row vertically
        ("C up 2, 2 right 6, A down 1", "bad_shift", 1),  # amounts 1-5
        ("C up 0, 2 right 3, A down 1", "bad_shift", 0),
        ("G up 1, 2 right 3, A down 1", "bad_shift", 0),  # no column G
        ("C up 2, 7 right 1, A down 1", "bad_shift", 1),  # no row 7
        ("C up, 2 right 3, A down 1", "bad_shift", 0),
        ("C up \u00b2, 2 right 3, A down 1", "bad_shift", 0),  # a superscript two: not an amount (was a ValueError, HTTP 500)
        ("C up 2, 2 right \u0663, A down 1", "bad_shift", 1),  # amounts are written with the digits 1-5
        ("convert A1; C up 2, 2 right 3, A down 1", "no_convertor", 0),
    ],
)
def test_bad_turns(move: str, code: str, step: int | None) -> None:  # R-X2
    err = refused(setup(SEED_EXAMPLE), move)
    assert err.code == code
    assert getattr(err, "step", None) == step
    assert err.message.endswith(".")


def test_legal_moves_are_first_shifts_and_say_how_many_are_due() -> None:  # R-X2
    state = setup(SEED_EXAMPLE)
    lm = GAME.legal_moves(state)
    assert len(lm.moves) == 12 * 2 * 5  # every file, both ways, 1-5
    assert lm.info["shifts_due"] == 3
    assert "C up 2" in lm.moves and "2 right 3" in lm.moves
    state, _ = play(state, "C up 2, 2 right 3, 2 left 1")
    lm = GAME.legal_moves(state)
    assert len(lm.moves) == 10 * 2 * 5  # C and 2 barred
    assert not any(m.startswith(("C ", "2 ")) for m in lm.moves)
    assert GAME.legal_moves(state, limit=7).moves == lm.moves[:7]
    assert GAME.legal_moves(state, limit=7).truncated


# -- R-X4: the threshold and the round's end ----------------------------------------------------


def test_crossing_the_threshold_as_first_mover_waits_for_the_round_end() -> None:  # R-X4
    # The seed example gives red+green 35 and blue+yellow 8 a turn.  Player 0 has
    # blue+yellow (8 a turn), player 1 red+green (35), player 0 shifts first.
    state = with_fields(
        setup(SEED_EXAMPLE, colors=(("blue", "yellow"), ("red", "green"))), scores=[245, 200], turns=[5, 5], ply=10
    )
    state, _ = play(state, IDENTITY_A)
    assert state.scores == (253, 235)  # player 0 is past 250, but the round is not over
    assert not GAME.is_over(state)
    state, events = play(state, IDENTITY_B)
    assert state.scores == (261, 270)  # the round ends: player 1 is ahead and wins
    assert (state.winner, state.end, state.to_move) == (1, "threshold", None)
    assert events[-1]["type"] == "end"
    assert GAME.dump(state)["status"] == "finished"


def test_a_tie_at_the_round_end_plays_on() -> None:  # R-X4
    # Player 0 (red+green) gains 35 a turn, player 1 (blue+yellow) 8.
    state = with_fields(setup(SEED_EXAMPLE), scores=[186, 240], turns=[5, 5], ply=10)
    state, _ = play(state, IDENTITY_A)
    assert state.scores == (221, 248)
    state, events = play(state, IDENTITY_B)
    assert state.scores == (256, 256)  # both past 250 and equal: play goes on
    assert not GAME.is_over(state)
    assert {"type": "tie", "scores": [256, 256]} in events
    state, _ = play(state, IDENTITY_A)
    state, _ = play(state, IDENTITY_B)
    assert state.scores == (326, 272)
    assert (state.winner, state.end) == (0, "threshold")


def test_thresholds_add_up() -> None:  # R-X4, R-X5
    assert threshold([]) == 250
    assert threshold(["bombs"]) == 200
    assert threshold(["rocks", "bombs"]) == 150
    assert threshold(["chameleons", "pylons", "spikes"]) == 400
    assert threshold(["color-convertor", "shift-plus"]) == 250
    all_seven = ["bombs", "chameleons", "color-convertor", "pylons", "rocks", "shift-plus", "spikes"]
    assert threshold(all_seven) == 250 - 50 + 50 + 50 - 50 + 50
    assert GAME.dump(GAME.new({"seed": 1, "anomalies": ["bombs", "spikes", "pylons"]}))["threshold"] == 300


# -- R-X5: bombs ---------------------------------------------------------------------------------

BOMBS = [
    "BBBB*Y",  # bombs E1, F3
    "YGYGBB",
    "RRRRR*",  # red A3-E3: 5, touches the bomb on F3 - it does not count
    "GYGYBB",
    "RRRGYG",  # red A5 B5 C5: 3, no bomb near: red's largest counting group
    "YGYGYG",
]
# Blue: A1-D1 (4, touches E1), E2 F2 (2, touch E1 and F3), E4 F4 (2, touch F3):
# every blue group touches a bomb, so blue's largest size is 0.
# Green: D5 D6 and F5 F6 (2 each), the rest alone: 2.  Yellow: E5 E6 (2), F1
# alone (touching E1, so not counted anyway), the rest alone: 2.


def test_bombs() -> None:  # R-X5 bombs
    state = setup(BOMBS, colors=(("red", "blue"), ("green", "yellow")), anomalies=["bombs"])
    assert GAME.dump(state)["threshold"] == 200
    after, events = play(state, IDENTITY_A)
    scored = score_events(events)
    assert scored[0]["largest"] == {"red": 3, "blue": 0}
    assert scored[0]["points"] == 0
    assert scored[1]["largest"] == {"green": 2, "yellow": 2}
    assert after.scores == (0, 4)


def test_bombs_move_with_shifts() -> None:  # R-X5 bombs
    # F down 1 carries the F3 bomb to F4 (column F: Y B * B G G -> G Y B * B G).
    # Red A3-E3 (5) no longer touches a bomb (F3 is blue now) and counts: red 5.
    # Blue: A1-D1 and E2 touch E1; F3 touches F4; E4 and F5 touch F4: still 0.
    # C up 3, C down 3 leave the grid as it was.
    state = setup(BOMBS, colors=(("red", "blue"), ("green", "yellow")), anomalies=["bombs"])
    state, events = play(state, "F down 1, C up 3, C down 3")
    assert [row[5] for row in GAME.dump(state)["board"]] == list("GYB*BG")
    assert score_events(events)[0]["largest"] == {"red": 5, "blue": 0}


# -- R-X5: chameleons ------------------------------------------------------------------------------

CHAMELEONS = [
    "YBGBYR",
    "BYGYBG",
    "RR@RRG",  # the chameleon on C3 joins red A3 B3 + D3 E3 (5) and green C1 C2 + C4 C5 (5)
    "YBGBYB",
    "BRGYBY",
    "RGR@RG",  # the chameleon on D6 joins red C6 + E6 (3) and yellow D5 (2)
]
# Blue: all alone (1).  Yellow: D5 + the D6 chameleon (2), the rest alone.


def test_chameleon_joins_two_groups_and_counts_in_two_colours() -> None:  # R-X5 chameleons
    state = setup(CHAMELEONS, anomalies=["chameleons"])
    assert GAME.dump(state)["threshold"] == 300
    _, events = play(state, IDENTITY_B)
    scored = score_events(events)
    assert scored[0]["largest"] == {"red": 5, "green": 5}  # C3 counted in both
    assert scored[1]["largest"] == {"blue": 1, "yellow": 2}
    assert (scored[0]["points"], scored[1]["points"]) == (25, 2)


CHAMELEON_PAIR = [
    "RB@@RB",  # two chameleons side by side, no green or yellow next to them
    "GYRBGY",
    "RBGYRB",
    "GYRBGY",
    "RBGYRB",
    "GYRBGY",
]
# Red: C1 D1 + C2 + E1 = 4.  Blue: B1 + C1 D1 + D2 = 4.  Green and yellow: the
# two chameleons alone form a group of 2; every green and yellow crystal is alone.


def test_chameleons_alone_form_a_group_of_every_colour() -> None:  # R-X5 chameleons
    state = setup(CHAMELEON_PAIR, colors=(("green", "yellow"), ("red", "blue")), anomalies=["chameleons"])
    _, events = play(state, "C down 2, C down 2, C down 2")
    scored = score_events(events)
    assert scored[0]["largest"] == {"green": 2, "yellow": 2}
    assert scored[1]["largest"] == {"red": 4, "blue": 4}


# -- R-X5: pylons -----------------------------------------------------------------------------------

PYLONS = [
    "RRRY++",  # two pylons on row 1: every crystal on row 1 counts 2
    "RYGBGY",
    "GBYRYB",
    "BGRGBR",
    "+YBYRG",  # with A6, two pylons on column A: every crystal on column A counts 2
    "+BGBGY",
]
# Red A1 B1 C1 A2: A1 is on row 1 and column A and counts 2, not 4; B1, C1 (row 1)
# and A2 (column A) count 2: 8.  Rows 5 and 6 and columns E and F hold one pylon
# each: no doubling there.  Yellow: D1 alone on row 1 = 2.  Green: A3 alone on
# column A = 2.  Blue: A4 alone on column A = 2.  Every other group is one crystal.


def test_pylons_double_and_never_quadruple() -> None:  # R-X5 pylons
    state = setup(PYLONS, colors=(("red", "yellow"), ("blue", "green")), anomalies=["pylons"])
    assert GAME.dump(state)["threshold"] == 300
    _, events = play(state, "C up 2, C up 2, C up 2")
    scored = score_events(events)
    assert scored[0]["largest"] == {"red": 8, "yellow": 2}
    assert scored[1]["largest"] == {"blue": 2, "green": 2}
    assert (scored[0]["points"], scored[1]["points"]) == (16, 4)


def test_a_pylon_line_stops_doubling_when_a_pylon_leaves_it() -> None:  # R-X5 pylons
    # E down 1 carries E1's pylon to E2: row 1 keeps one pylon (F1) and row 2 gets
    # one; no row doubles, column A still does.  Row 1 becomes R R R Y G +
    # (E6's green wraps to E1).  Red A1 B1 C1 A2 now counts A1, A2 double: 6.
    state = setup(PYLONS, colors=(("red", "yellow"), ("blue", "green")), anomalies=["pylons"])
    _, events = play(state, "E down 1, C up 3, C up 3")
    assert score_events(events)[0]["largest"]["red"] == 6


# -- R-X5: rocks -------------------------------------------------------------------------------------

ROCKS = [
    "R#GYRB",  # rocks B1, A2, F4, E5: four rows, four columns
    "#YRBGY",
    "RBGYRB",
    "GYRBG#",
    "RBGY#B",
    "GYRBGY",
]


def test_rock_may_not_cross_the_edge() -> None:  # R-X5 rocks
    state = setup(ROCKS, anomalies=["rocks"])
    assert GAME.dump(state)["threshold"] == 200
    err = refused(state, "C up 2, 4 right 1, C down 2")  # F4's rock would leave on the right
    assert (err.code, err.step) == ("rock_over_edge", 1)
    assert refused(state, "F up 4, C up 1, C up 1").code == "rock_over_edge"  # F4 is 3 from the top
    assert refused(state, "F down 3, C up 1, C up 1").code == "rock_over_edge"  # and 2 from the bottom
    assert refused(state, "B up 1, C up 1, C up 1").code == "rock_over_edge"  # B1 is on the top edge
    # Each shift is checked on the grid the earlier ones left: after 4 left 5 the
    # rock is on A4, so 4 left 1 would now carry it over the left edge.
    err = refused(state, "4 left 5, 4 left 1, C up 1")
    assert (err.code, err.step) == ("rock_over_edge", 1)
    after, _ = play(state, "F up 3, F down 2, 4 left 5")  # up to the edge is fine: F4 -> F1 -> F3
    assert GAME.dump(after)["board"][2][5] == "#"


def test_rocks_limit_the_listed_shifts() -> None:  # R-X5 rocks, R-X2
    # A file with one rock at position p (0-5 along it) allows 5 - p shifts forward
    # and p backward: 5 in all.  Columns A B E F and rows 1 2 4 5 hold one rock
    # each (40), columns C D and rows 3 6 none (4 x 10): 80.
    lm = GAME.legal_moves(setup(ROCKS, anomalies=["rocks"]))
    assert len(lm.moves) == 80
    assert "F up 3" in lm.moves and "F up 4" not in lm.moves
    assert "B down 5" in lm.moves and "B up 1" not in lm.moves


# -- R-X5: shift-plus -------------------------------------------------------------------------------


def test_shift_plus_counts() -> None:  # R-X5 shift-plus
    assert [shifts_due(["shift-plus"], t) for t in range(1, 13)] == [2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5]
    assert [shifts_due([], t) for t in (1, 5, 20)] == [3, 3, 3]


def test_shift_plus_in_play() -> None:  # R-X5 shift-plus
    # On LATIN, columns A (red/green) and B (blue/yellow) never hold a colour of
    # the other, so shifting them keeps every group a single crystal: totals stay
    # small and the game runs ten turns each.
    state = setup(LATIN, anomalies=["shift-plus"])
    seen: dict[int, list[int]] = {0: [], 1: []}
    for _ in range(20):
        p = state.to_move
        assert p is not None
        due = GAME.dump(state)["shifts_due"]
        seen[p].append(due)
        file = "A" if p == 0 else "B"
        assert refused(state, ", ".join([f"{file} up 1"] * (due - 1))).code == "wrong_shift_count"
        assert refused(state, ", ".join([f"{file} up 1"] * (due + 1))).code == "wrong_shift_count"
        state, _ = play(state, ", ".join([f"{file} up 1"] * due))
    assert seen[0] == seen[1] == [2, 2, 2, 3, 3, 3, 4, 4, 4, 5]
    assert state.scores == (20, 20)


# -- R-X5: spikes ------------------------------------------------------------------------------------

SPIKES = [
    "RBgYRB",  # spiked: g C1, r C2, y F2, b B3, g E4, r A5, y D5, b D6
    "GYrBGy",
    "RbGYRB",
    "GYRBgY",
    "rBGyRB",
    "GYRbGY",
]


def test_spikes_pay_the_opponent_a_point_per_cell() -> None:  # R-X5 spikes
    state = setup(SPIKES, anomalies=["spikes"])
    assert GAME.dump(state)["threshold"] == 300
    # Column C carries two spiked crystals (C1, C2), 2 cells a shift, three times:
    # 2 x 2 x 3 = 12 points to player 1 at once; every group is one crystal (1 x 1).
    after, events = play(state, "C up 2, C up 2, C up 2")
    assert {"type": "spikes", "player": 1, "points": 12} in events
    assert after.scores == (1, 13)


def test_spike_points_follow_the_crystals_through_the_turn() -> None:  # R-X5 spikes
    # C up 3: C1 g and C2 r travel 3 cells each: 6 (they land on C4, C5).
    # 2 right 1: row 2 is now G Y G B G y: only F2 y is spiked: 1 (it wraps to A2).
    # E down 5: column E is now R B R g R G (E2 came from D2): E4 g travels 5.
    state = setup(SPIKES, anomalies=["spikes"])
    _, events = play(state, "C up 3, 2 right 1, E down 5")
    assert {"type": "spikes", "player": 1, "points": 6 + 1 + 5} in events


def test_spikes_vanish_once_both_players_made_fifteen_turns() -> None:  # R-X5 spikes
    state = with_fields(setup(SPIKES, anomalies=["spikes"]), scores=[100, 100], turns=[14, 14], ply=28)
    state, events = play(state, IDENTITY_B)  # player 0's 15th turn: player 1 has made 14
    assert not any(e["type"] == "spikes_vanish" for e in events)
    assert GAME.dump(state)["board"] == SPIKES
    state, events = play(state, IDENTITY_A)  # player 1's 15th: column A carries r A5, 6 cells
    assert {"type": "spikes", "player": 0, "points": 6} in events
    assert {"type": "spikes_vanish"} in events
    assert GAME.dump(state)["board"] == LATIN  # plain crystals from now on
    state, events = play(state, "C up 2, C up 2, C up 2")
    assert not any(e["type"] == "spikes" for e in events)


# -- R-X5: color-convertor --------------------------------------------------------------------------


def test_conversion_turns_a_crystal_into_the_other_colour() -> None:  # R-X5 color-convertor
    # Player 0 holds red and green.  C1 is green; as red it touches red C2: red 2.
    state = setup(LATIN, anomalies=["color-convertor"])
    verdict = GAME.play(state, "Convert c1; A up 2, A up 2, A up 2")
    assert verdict.legal
    assert verdict.move == "convert C1; A up 2, A up 2, A up 2"
    assert verdict.events[0] == {"type": "convert", "player": 0, "cell": "C1", "from": "green", "to": "red"}
    assert GAME.dump(verdict.state)["board"][0] == "RBRYRB"
    scored = score_events(verdict.events)
    assert scored[0]["largest"] == {"red": 2, "green": 1}
    assert GAME.load(GAME.dump(verdict.state)) == verdict.state  # 10 red and 8 green is a valid grid now


def test_conversion_errors() -> None:  # R-X5 color-convertor
    state = setup(LATIN, anomalies=["color-convertor"])
    err = refused(state, "convert B1; A up 2, A up 2, A up 2")  # B1 is blue: player 1's
    assert (err.code, err.step) == ("not_your_colour", 0)
    err = refused(state, "A up 2, convert C1, A up 2, A up 2")
    assert (err.code, err.step) == ("convert_not_first", 1)
    err = refused(state, "convert C1; convert A1; A up 2, A up 2, A up 2")
    assert (err.code, err.step) == ("convert_not_first", 1)
    assert refused(state, "convert C1; A up 2, A up 2").code == "wrong_shift_count"
    lm = GAME.legal_moves(state)
    assert len(lm.info["converts"]) == 18  # nine red and nine green crystals
    spiked = setup(SPIKES, anomalies=["spikes", "color-convertor"])
    after, _ = play(spiked, "convert C1; A up 2, A up 2, A up 2")
    assert GAME.dump(after)["board"][0] == "RBrYRB"  # the spike stays on the crystal


# -- all anomalies together -------------------------------------------------------------------------

ALL_SEVEN = ["bombs", "chameleons", "color-convertor", "pylons", "rocks", "shift-plus", "spikes"]


def test_all_seven_fit_and_a_game_runs_from_draft_to_threshold() -> None:  # R-X1..R-X5
    state = GAME.new({"seed": "all", "anomalies": ALL_SEVEN})
    board = "".join(GAME.dump(state)["board"])
    # 6 of each colour (9 - bombs/chameleons - pylons - rocks), 2 bombs, 2 chameleons, 4 pylons, 4 rocks.
    assert [board.upper().count(s) for s in "RBGY*@+#"] == [6, 6, 6, 6, 2, 2, 4, 4]
    assert sum(ch.islower() for ch in board) == 8
    for m in ("second", "green", "red yellow", "first"):
        state, _ = play(state, m)
    assert (state.first, state.to_move) == (1, 1)
    turns = 0
    while not GAME.is_over(state):
        moves = []
        s = state
        for _ in range(GAME.shifts_due(state)):
            lm = GAME.legal_moves(s)
            moves.append(lm.moves[(turns * 7 + len(moves) * 3) % len(lm.moves)])
            s = GAME.shifted(s, GAME.parse(s, moves[-1]).items[0])  # type: ignore[union-attr]
        state, _ = play(state, ", ".join(moves))
        turns += 1
        assert turns < 500
    assert state.end == "threshold"
    assert max(state.scores) >= 250


# -- R-X6 and resigning --------------------------------------------------------------------------------


def test_flag_in_the_shift_phase_passes_the_turn_and_scores_it() -> None:  # R-X6
    assert GAME.flag_rule == "proxy"
    state = setup(SEED_EXAMPLE)
    state, _ = play(state, "C up 2, C up 2, C up 2")
    state, events = GAME.timeout(state)  # player 1 flagged and nobody moved for them
    assert events[0] == {"type": "flag", "player": 1}
    assert GAME.dump(state)["board"] == SEED_EXAMPLE
    assert state.scores == (70, 16)
    assert state.turns == (1, 1)
    assert (state.to_move, GAME.dump(state)["barred"]) == (0, [])  # no shifts, nothing barred


def test_flag_in_the_draft_makes_the_default_choice() -> None:  # R-X6 (draft: our ruling)
    state = GAME.new({"seed": "flag"})
    state, _ = GAME.timeout(state)  # "first": player 0 picks first
    assert (state.phase, state.to_move) == ("pick_one", 0)
    state, events = GAME.timeout(state)  # red
    assert events[0] == {"type": "flag", "player": 0, "default": "red"}
    state, _ = GAME.timeout(state)  # player 1: the first two left, blue green
    assert GAME.dump(state)["colors"] == [["red", "yellow"], ["blue", "green"]]
    state, _ = GAME.timeout(state)  # player 1: "first", they shift first
    assert (state.phase, state.first, state.to_move) == ("shift", 1, 1)


def test_resign() -> None:
    state = setup(SEED_EXAMPLE)
    state, events = GAME.resign(state, 0)
    assert (state.winner, state.end, state.to_move) == (1, "resign", None)
    assert events[-1] == {"type": "end", "winner": 1, "end": "resign"}
    assert GAME.play(state, IDENTITY_A).error.code == "game_over"  # type: ignore[union-attr]
    with pytest.raises(IllegalMove):
        GAME.timeout(state)
    assert GAME.load(GAME.dump(state)) == state
