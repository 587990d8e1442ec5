"""Crystal Connector states and options: the JSON form round-trips exactly, and a
client's state or options are checked field by field, never trusted (API.md)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from engine.errors import BadOptions, BadState
from engine.games.crystal.rules import Crystal

GAME = Crystal()
LATIN = ["RBGYRB", "GYRBGY", "RBGYRB", "GYRBGY", "RBGYRB", "GYRBGY"]
COLORS = [["red", "green"], ["blue", "yellow"]]


def mid_game(anomalies: list[str] | None = None) -> dict[str, Any]:
    """Player 0 shifted A and 2 on their first turn; player 1 is to move."""
    anomalies = anomalies or []
    where: dict[str, Any] = {"grid": LATIN} if set(anomalies) <= {"color-convertor", "shift-plus"} else {"seed": "mid"}
    state = GAME.new({**where, "colors": COLORS, "first": 0, "anomalies": anomalies})
    verdict = GAME.play(state, ", ".join(["A up 1", "2 left 1", "A up 1"][: GAME.shifts_due(state)]))
    assert verdict.legal
    return GAME.dump(verdict.state)


def test_state_has_the_api_fields() -> None:  # API.md "Reading a state"
    data = GAME.dump(GAME.new({"seed": "fields"}))
    for key in ("game", "version", "options", "to_move", "ply", "status", "winner", "end", "scores", "board"):
        assert key in data
    for key in ("phase", "colors", "first", "threshold", "barred", "shifts_due", "seed"):
        assert key in data
    assert data["colors"] == [[], []] and data["first"] is None and data["phase"] == "pick_order"


@pytest.mark.parametrize(
    "state",
    [
        GAME.new({"seed": "rt"}),
        GAME.new({"seed": "rt", "anomalies": ["spikes", "rocks", "chameleons"], "colors": COLORS}),
        GAME.load(mid_game()),
        GAME.load(mid_game(["color-convertor", "shift-plus", "pylons", "bombs"])),
    ],
)
def test_round_trip(state: Any) -> None:
    data = GAME.dump(state)
    assert GAME.load(data) == state
    assert GAME.dump(GAME.load(copy.deepcopy(data))) == data


def broken(change: dict[str, Any], base: dict[str, Any] | None = None) -> str:
    data = copy.deepcopy(base or mid_game())
    data.update(change)
    with pytest.raises(BadState) as info:
        GAME.load(data)
    assert info.value.message.endswith(".")
    return info.value.field


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"game": "bug"}, "state.game"),
        ({"version": 9}, "state.version"),
        ({"version": 1.0}, "state.version"),  # a JSON integer, or the state would not dump back as sent
        ({"threshold": 250.0}, "state.threshold"),
        ({"shifts_due": 3.0}, "state.shifts_due"),
        ({"extra": 1}, "state.extra"),  # a field no state has
        ({"options": {"anomalies": ["lava"]}}, "state.options.anomalies.0"),
        ({"options": {"anomalies": [], "size": 6}}, "state.options.size"),
        ({"scores": [-1, 0]}, "state.scores.0"),
        ({"scores": [1.5, 0]}, "state.scores.0"),
        ({"scores": [1]}, "state.scores"),
        ({"turns": [1, 2]}, "state.turns"),  # the second mover cannot be ahead
        ({"turns": [0, 0]}, "state.scores"),  # totals before any turn
        ({"ply": 0}, "state.ply"),
        ({"phase": "draft"}, "state.phase"),
        ({"first": None}, "state.first"),
        ({"first": 1}, "state.turns"),  # player 1 first cannot be a turn behind player 0
        ({"to_move": 0}, "state.to_move"),
        ({"to_move": None}, "state.to_move"),
        ({"to_move": 1.0}, "state.to_move"),  # a JSON integer, not a float (was a TypeError, HTTP 500)
        ({"first": 0.0}, "state.first"),  # (was an AssertionError, HTTP 500)
        ({"first": True}, "state.first"),
        ({"winner": 0}, "state.winner"),
        ({"end": "threshold"}, "state.end"),
        ({"status": "done"}, "state.status"),
        ({"colors": [["red", "green"], ["blue", "red"]]}, "state.colors.1.1"),
        ({"colors": [["red", "green"], ["blue"]]}, "state.colors"),
        ({"colors": [["red", "green"], ["blue", "pink"]]}, "state.colors.1.1"),
        ({"board": LATIN[:5]}, "state.board"),
        ({"board": ["RBGYRX", *LATIN[1:]]}, "state.board.F1"),
        ({"board": ["RBGYR", *LATIN[1:]]}, "state.board.0"),
        ({"board": ["RBGYRR", *LATIN[1:]]}, "state.board"),  # 10 red, 8 blue
        ({"board": ["rBGYRB", *LATIN[1:]]}, "state.board.A1"),  # spikes without the anomaly
        ({"board": ["*BGYRB", *LATIN[1:]]}, "state.board"),  # a bomb without the anomaly
        ({"barred": ["G"]}, "state.barred.0"),
        ({"barred": ["A", "a"]}, "state.barred.1"),
        ({"barred": ["A", "B", "C", "D"]}, "state.barred"),  # the last turn had 3 shifts
        ({"barred": "A"}, "state.barred"),
        ({"threshold": 300}, "state.threshold"),
        ({"shifts_due": 5}, "state.shifts_due"),
        ({"seed": 7}, "state.seed"),
        ({"seed": "\udfff"}, "state.seed"),  # a lone surrogate: JSON carries it, no deal can read it
        # spelt as dumped, so that dump(load(x)) == x (options may be loose, a state may not)
        ({"barred": ["a", "2"]}, "state.barred.0"),
        ({"barred": ["2", "A"]}, "state.barred.1"),  # files in the order A-F, 1-6
        ({"colors": [["Red", "green"], ["blue", "yellow"]]}, "state.colors.0.0"),
        ({"colors": [["green", "red"], ["blue", "yellow"]]}, "state.colors.0.1"),  # red, blue, green, yellow order
        ({"options": {}}, "state.options.anomalies"),
    ],
)
def test_bad_states_name_the_field(change: dict[str, Any], field: str) -> None:
    assert broken(change) == field


def test_draft_states_are_checked() -> None:  # R-X1
    fresh = GAME.dump(GAME.new({"seed": "d"}))
    assert broken({"to_move": 1}, fresh) == "state.to_move"  # player 0 says who picks first
    assert broken({"colors": [["red"], []]}, fresh) == "state.colors"
    assert broken({"barred": ["A"]}, fresh) == "state.barred"
    assert broken({"scores": [3, 0]}, fresh) == "state.scores"
    assert broken({"phase": "pick_two", "ply": 2, "to_move": 1, "colors": [[], ["red"]]}, fresh) == "state.to_move"
    assert broken({"phase": "pick_one", "ply": 0}, fresh) == "state.ply"  # reached only by a move
    ok = GAME.load({**fresh, "phase": "pick_two", "ply": 2, "to_move": 0, "colors": [[], ["red"]]})
    assert ok.colors == ((), (0,))


def test_finished_states_are_checked() -> None:  # R-X4
    data = mid_game()
    done = {
        **data,
        "status": "finished",
        "to_move": None,
        "winner": 1,
        "end": "threshold",
        "turns": [1, 1],
        "ply": 2,
        "barred": [],
        "shifts_due": 0,  # nobody is to move
    }
    assert broken({"scores": [100, 200]}, done) == "state.end"  # below the threshold: not over
    assert broken({"scores": [300, 300]}, done) == "state.end"  # a tie plays on
    assert broken({"scores": [300, 200]}, done) == "state.winner"  # the higher total wins
    assert broken({"end": "flag"}, {**done, "scores": [200, 300]}) == "state.end"  # R-X6: a flag never ends it
    GAME.load({**done, "scores": [200, 300]})
    # ongoing at a round's end with a total past the threshold and no tie is impossible
    assert broken({"scores": [300, 200], "turns": [1, 1], "ply": 2, "to_move": 0, "barred": []}) == "state.status"


def test_counts_with_conversions_and_spikes() -> None:  # R-X5
    data = mid_game(["color-convertor"])
    # a conversion moves crystals inside a pair: 10 red and 8 green is fine, 10 red and 8 blue is not
    GAME.load({**data, "board": ["RBRYRB", *LATIN[1:]]})
    assert broken({"board": ["RRGYRB", *LATIN[1:]]}, data) == "state.board"
    spiky = GAME.dump(
        GAME.new({"grid": ["rbgyRB", "GYRBGY", "RBGYRB", "gyrbGY", *LATIN[4:]], "colors": COLORS, "anomalies": ["spikes"]})
    )
    assert broken({"board": ["RbgyRB", *spiky["board"][1:]]}, spiky) == "state.board"  # 7 spikes
    late = {
        **spiky,
        "phase": "shift",
        "first": 0,
        "to_move": 0,
        "turns": [15, 15],
        "ply": 30,
        "scores": [10, 10],
        "shifts_due": 3,
    }
    assert broken({}, late) == "state.board"  # spikes vanished after both players' 15th turn
    GAME.load({**late, "board": [row.upper() for row in spiky["board"]]})


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"size": 6}, "options.size"),
        ({"anomalies": "bombs"}, "options.anomalies"),
        ({"anomalies": ["bombs", "bombs"]}, "options.anomalies.1"),
        ({"anomalies": ["lava"]}, "options.anomalies.0"),
        ({"seed": ""}, "options.seed"),
        ({"seed": -1}, "options.seed"),
        ({"seed": True}, "options.seed"),
        ({"seed": "a\ud800"}, "options.seed"),  # a lone surrogate cannot be dealt from (was a UnicodeEncodeError, HTTP 500)
        ({"seed": 10**200}, "options.seed"),  # 201 digits: the state's seed could not be read back
        ({"grid": LATIN, "seed": "x"}, "options.seed"),
        ({"grid": LATIN[:5]}, "options.grid"),
        ({"grid": ["RBGYR?", *LATIN[1:]]}, "options.grid.F1"),
        ({"grid": LATIN, "anomalies": ["bombs"]}, "options.grid"),  # no bombs on the grid
        ({"grid": ["rbgyRB", *LATIN[1:]], "anomalies": ["spikes"]}, "options.grid"),  # 4 spikes, not 8
        ({"first": 0}, "options.first"),  # needs colors
        ({"colors": [["red", "green"]]}, "options.colors"),
        ({"colors": [["red", "green"], ["green", "yellow"]]}, "options.colors.1.0"),
        ({"colors": [["red", "green"], ["blue"]]}, "options.colors.1"),
        ({"colors": COLORS, "first": 2}, "options.first"),
        ({"colors": COLORS, "first": 1.0}, "options.first"),  # a JSON integer, or the state would carry 1.0
    ],
)
def test_bad_options_name_the_field(options: dict[str, Any], field: str) -> None:
    with pytest.raises(BadOptions) as info:
        GAME.new(options)
    assert info.value.field == field


def test_options_accept_aliases_and_any_colour_order() -> None:
    state = GAME.new({"seed": 1, "anomalies": ["Colour-Convertor"], "colors": [["Green", "red"], ["yellow", "BLUE"]], "first": 1})
    data = GAME.dump(state)
    assert data["options"] == {"anomalies": ["color-convertor"]}
    assert data["colors"] == COLORS
    # An explicit grid may put rocks on shared rows and columns (an umpire's diagram;
    # a dealt grid never does): A1 B1 A2 B2 replace one red, blue, green and yellow.
    state = GAME.new({"grid": ["##GYRB", "##RBGY", *LATIN[2:]], "anomalies": ["rocks"]})
    assert GAME.dump(state)["board"][:2] == ["##GYRB", "##RBGY"]


def test_state_anomalies_are_named_as_dumped() -> None:
    data = mid_game(["shift-plus", "color-convertor"])
    assert data["options"]["anomalies"] == ["color-convertor", "shift-plus"]
    assert broken({"options": {"anomalies": ["shift-plus", "color-convertor"]}}, data) == "state.options.anomalies"
    assert broken({"options": {"anomalies": ["colour-convertor", "shift-plus"]}}, data) == "state.options.anomalies"
    assert broken({"options": {"anomalies": ["Color-Convertor", "shift-plus"]}}, data) == "state.options.anomalies"


@pytest.mark.parametrize("key", ["version", "threshold", "shifts_due", "seed", "barred", "end"])
def test_every_field_is_required(key: str) -> None:  # dump(load(x)) == x: nothing is filled in
    data = mid_game()
    del data[key]
    with pytest.raises(BadState) as info:
        GAME.load(data)
    assert info.value.field == f"state.{key}"


def test_a_seed_given_as_a_number_is_kept_as_text() -> None:
    data = GAME.dump(GAME.new({"seed": 10**200 - 1}))  # the longest: 200 digits
    assert data["seed"] == "9" * 200
    assert GAME.dump(GAME.load(data)) == data


def test_seedless_grid_state_records_null_seed() -> None:
    data = GAME.dump(GAME.new({"grid": LATIN}))
    assert data["seed"] is None
    assert GAME.dump(GAME.load(data)) == data
