"""No client input makes the stateless API fail, and every state it accepts
round-trips exactly (API.md "Reading a state", "Errors").

Real states of every game - each Catchup variant, Bug genius and Green
Meadow with either eaters rule, Crystal Connector with and without anomalies
and in each draft phase, finished games included - are reached by random legal
moves through the engine, then mutated as a careless or hostile client might:
a field or any nested value (a board cell, a grid row, a colour, a score, a
barred file, an option...) replaced by a value of another JSON type or a
near miss of the right one (``0.0`` for ``0``, ``"e5"`` for ``"E5"``, ``10**30``,
``-1``...), a field deleted or renamed, an unknown field added, a list
reordered or grown.  Each mutant goes to ``/play`` with a legal-looking move
(one that is legal in the unmutated state) and a garbage one, and to
``/legal-moves``; ``new`` options, ``replay`` bodies and the move field are
fuzzed the same way.

What must hold, whatever was sent:

* the answer is ``200`` or ``422``, never ``500`` (and the ``client``
  fixture checks every answer against openapi.yaml);
* a ``422`` names the offending field in ``details.field``, a path from the
  body's root (``state.board.E5``, ``options.size``, ``moves.3``, ``move``);
* a state the server accepts is one it could have given out: answered
  unchanged by an illegal verdict, ``dump(load(x)) == x`` exactly - JSON types
  included, so ``1.0`` is not ``1`` and ``true`` is not ``1`` - and every state
  it answers loads back and dumps equal.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from flask.testing import FlaskClient
from gamekit import config_id, option_configs, random_game, random_move
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.game import Game
from engine.registry import GAMES

Json = dict[str, Any]
Path = tuple[str | int, ...]

FUZZ = settings(
    max_examples=150,
    deadline=None,
    # the client is stateless between requests, so one per test function serves every example
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# (game, options): each game's option samples, read from its declarations
# (tests/gamekit.py), so that a new game is fuzzed without editing this file
CONFIGS: list[tuple[str, Json]] = option_configs()
CONFIG_IDS = [config_id(name, options) for name, options in CONFIGS]


# -- real states, by random legal moves through the engine -------------------------


def legal_looking_move(game: Game[Any, Any], state: Any, rnd: random.Random) -> str:
    """A move that is legal in ``state`` (the fuzz sends it to mutants of it)."""
    if game.is_over(state):
        return "A1"  # a finished game: any move is answered game_over
    return random_move(game, state, rnd)


def real_state(name: str, options: Json, plies: int, rnd: random.Random) -> tuple[Any, str]:
    """A state ``plies`` random legal moves from ``new(options)`` (sometimes then
    resigned or flagged), and a move that is legal in it."""
    game = GAMES[name]
    _, state, _ = random_game(game, options, plies, rnd)
    if not game.is_over(state) and rnd.random() < 0.1:
        state = game.resign(state, rnd.randrange(2))[0] if rnd.random() < 0.5 else game.timeout(state)[0]
    return state, legal_looking_move(game, state, rnd)


def plies_for(name: str) -> st.SearchStrategy[int]:
    # openings (Crystal's draft, Green Meadow's blackening, a pie swap), then play
    return st.one_of(st.integers(0, 4), st.integers(5, 40))


# -- mutations ------------------------------------------------------------------------

ODD: list[Any] = [
    0,
    1,
    2,
    -1,
    10**30,
    -(10**30),
    10**300,
    0.0,
    1.0,
    -1.5,
    1e308,
    True,
    False,
    None,
    "",
    " ",
    "x",
    "E5",
    "A",
    "red",
    "shift",
    "ongoing",
    "finished",
    "\x00",
    "\u00e9\u0130\u00b2",
    "\ud800",  # a lone surrogate: JSON carries it, UTF-8 cannot
    "x" * 300,
    [],
    [0],
    [None],
    ["A"],
    [[], []],
    [0, 0],
    {},
    {"x": 1},
    {"E5": 0},
]


def near_misses(value: Any) -> list[Any]:
    """Values a sloppy client might send instead of ``value``: the same number
    as another JSON type, another case of the same text, the list reordered."""
    if isinstance(value, bool):
        return [int(value), float(value), str(value).lower(), not value]
    if isinstance(value, int):
        return [float(value), value + 1, value - 1, -value - 1, str(value), value == 1, [value], 10**30 + value]
    if isinstance(value, str):
        return [value.lower(), value.upper(), value.capitalize(), f" {value}", f"{value} ", value * 2, value[:-1], [value]]
    if isinstance(value, list):
        out: list[Any] = [list(reversed(value)), value[:-1], [*value, None], {"0": value}]
        if value:
            out += [[*value, value[-1]], [*value, value[0]], value[1:]]
        return out
    if isinstance(value, dict):
        return [{}, list(value), {**value, "": 0}]
    return []


def paths(x: Any, prefix: Path = ()) -> list[Path]:
    """Every place in a JSON value (the root included), depth first."""
    out = [prefix]
    if isinstance(x, dict):
        for k, v in x.items():
            out += paths(v, (*prefix, k))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            out += paths(v, (*prefix, i))
    return out


def get(x: Any, path: Path) -> Any:
    for k in path:
        x = x[k]
    return x


@st.composite
def mutated(draw: st.DrawFn, value: Json, *, protect: tuple[str, ...] = ()) -> Json:
    """``value`` with one to three changes somewhere inside it; top-level keys in
    ``protect`` are left alone (``game``: a wrong game is one easy 422 that would
    shadow the rest)."""
    out = copy.deepcopy(value)
    for _ in range(draw(st.integers(1, 3))):
        places = [p for p in paths(out) if not (p and p[0] in protect)]
        path = draw(st.sampled_from(places))
        parent, key = (get(out, path[:-1]), path[-1]) if path else (None, None)
        current = get(out, path)
        kind = draw(st.sampled_from(["replace", "replace", "near", "near", "delete", "rename", "add"]))
        if kind in ("replace", "near"):
            choices = near_misses(current) if kind == "near" else []
            new = copy.deepcopy(draw(st.sampled_from(choices or ODD)))  # never share ODD's lists, or they grow
            if parent is None:
                if isinstance(new, dict):
                    out = new
                continue
            parent[key] = new
        elif kind == "delete" and parent is not None:
            del parent[key]
        elif kind == "rename" and isinstance(parent, dict):
            assert isinstance(key, str)
            name = draw(st.sampled_from([key.lower(), key.upper(), f"{key}x", "", "Z99", f" {key}"]))
            parent[name] = parent.pop(key)
        elif kind == "add":
            where = current if isinstance(current, dict | list) else parent
            if isinstance(where, dict):
                where[draw(st.sampled_from(["extra", "A1", "Z9", "0", "options"]))] = copy.deepcopy(draw(st.sampled_from(ODD)))
            elif isinstance(where, list):
                where.insert(draw(st.integers(0, len(where))), copy.deepcopy(draw(st.sampled_from(ODD))))
    return out


# -- what every answer must satisfy ----------------------------------------------------


def canonical(x: Any) -> str:
    """JSON text with sorted keys: equal only when the values are equal as JSON
    (``1.0 != 1``, ``true != 1``, list order counts)."""
    return json.dumps(x, sort_keys=True)


def round_trips(game: Game[Any, Any], data: Json) -> bool:
    return canonical(game.dump(game.load(copy.deepcopy(data)))) == canonical(data)


# the fields of each request body (API.md), and "body" for the body as a whole
REQUEST_FIELDS = {
    "new": ("body", "options"),
    "play": ("body", "state", "move"),
    "legal-moves": ("body", "state", "limit"),
    "replay": ("body", "options", "moves"),
}


def answer(client: FlaskClient, path: str, body: Any) -> tuple[int, Json]:
    """POST ``body``; the answer must be 200 or a 422 naming a field of the body."""
    resp = client.post(path, json=body)
    text = resp.get_data(as_text=True)
    assert resp.status_code in (200, 422), f"{resp.status_code} from {path}: {text}\nbody: {body!r}"
    data: Json = resp.get_json()
    if resp.status_code == 422:
        field = data["error"]["details"]["field"]
        assert isinstance(field, str) and field, text
        root = field.split(".")[0]
        sent = list(body) if isinstance(body, dict) else []  # an unknown field is named too
        assert root in (*REQUEST_FIELDS[path.rsplit("/", 1)[1]], *sent), f"{field!r} is no field of the body: {text}"
    return resp.status_code, data


def check_play(client: FlaskClient, game: Game[Any, Any], state: Any, move: Any) -> None:
    status, data = answer(client, f"/v1/games/{game.name}/play", {"state": state, "move": move})
    if status != 200:
        return
    if data["legal"]:
        assert round_trips(game, data["state"]), data["state"]
    else:  # the state was accepted, and comes back exactly as sent
        assert canonical(data["state"]) == canonical(state), f"accepted {state!r}\nanswered {data['state']!r}"


NO_LIMIT = object()
LIMITS = [NO_LIMIT, None, 1, 3, 100000, 0, 100001, -1, True, 1.0, "2", [1]]


def check_state(client: FlaskClient, game: Game[Any, Any], state: Json, move: str, limit: Any = NO_LIMIT) -> None:
    """A (possibly mutated) state through /legal-moves (with ``limit``, if any) and /play."""
    body = {"state": state} if limit is NO_LIMIT else {"state": state, "limit": limit}
    status, listed = answer(client, f"/v1/games/{game.name}/legal-moves", body)
    if status == 200:
        assert round_trips(game, state), f"accepted, but does not round-trip: {state!r}"
        assert type(limit) is not int or listed["count"] <= limit
    check_play(client, game, state, move)
    check_play(client, game, state, "Z9 up 0, ~")


# -- the fuzz --------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=CONFIG_IDS)
@FUZZ
@given(data=st.data())
def test_mutated_states_never_fail(client: FlaskClient, name: str, options: Json, data: st.DataObject) -> None:
    game = GAMES[name]
    plies = data.draw(plies_for(name), label="plies")
    state, move = real_state(name, options, plies, random.Random(data.draw(st.integers(0, 2**32), label="seed")))
    good = game.dump(state)
    assert round_trips(game, good)
    bad = data.draw(mutated(good, protect=("game",) if data.draw(st.booleans()) else ()), label="state")
    check_state(client, game, bad, move, data.draw(st.sampled_from(LIMITS), label="limit"))


@pytest.mark.parametrize(("name", "options"), CONFIGS[::2], ids=CONFIG_IDS[::2])
@settings(FUZZ, max_examples=60)
@given(data=st.data())
def test_real_states_round_trip(client: FlaskClient, name: str, options: Json, data: st.DataObject) -> None:
    """The unmutated states: accepted, answered unchanged, and the move is legal."""
    game = GAMES[name]
    state, move = real_state(name, options, data.draw(plies_for(name)), random.Random(data.draw(st.integers(0, 2**32))))
    good = game.dump(state)
    _, verdict = answer(client, f"/v1/games/{name}/play", {"state": good, "move": move})
    assert verdict["legal"] == (not game.is_over(state)), verdict
    check_state(client, game, good, move)


# -- moves -------------------------------------------------------------------------------

TOKENS = [
    "A1", "e5", "E5", "Z9", "A", "1", "6", "C", "up", "down", "left", "right", "2", "5", "0", "9", "10", "-1",
    "\u00b2", "\u0663", "\uff11", "\u0131", "\ufb03", "first", "second", "red", "blue", "green", "yellow", "and",
    "convert", "convert C4", "timeout", "resign", "resign 0", "resign 7", ",", ";", " ", "\t", "\n", "",
]  # fmt: skip


ODD_DIGITS = ["1", "3", "5", "0", "6", "12", "\u00b2", "\u0663", "\uff11", "\u2075", "-1", "1.0", "01", ""]


def move_text() -> st.SearchStrategy[str]:
    """Notation-shaped text: real words, odd digits (superscript two, Arabic-Indic
    three, a full-width one) and separators, joined at random; cells and shifts
    that are nearly right."""
    words = st.lists(st.sampled_from(TOKENS), min_size=1, max_size=12)
    letter = st.sampled_from(["A", "c", "F", "G", "i", "Z", "\u0131", "\u00df", "", "AA"])
    cell = st.tuples(letter, st.sampled_from(ODD_DIGITS)).map("".join)
    amount = st.sampled_from(["1", "5", "0", "6", "\u00b2", "\u0663", "\uff11"])  # digits int() refuses or reads
    shift = st.one_of(
        st.tuples(st.sampled_from(["A", "c", "F"]), st.sampled_from(["up", "DOWN"]), amount).map(" ".join),
        st.tuples(st.sampled_from(["1", "6"]), st.sampled_from(["left", "Right"]), amount).map(" ".join),
        st.tuples(
            st.sampled_from(["A", "1", "G", "7", "\u00b2", "", "AB"]),
            st.sampled_from(["up", "left", "sideways", ""]),
            st.sampled_from(ODD_DIGITS),
        ).map(" ".join),
    )
    step = st.one_of(cell, shift, cell.map(lambda c: f"convert {c}"))
    shaped = st.one_of(
        st.lists(step, min_size=1, max_size=6).map(", ".join),
        st.lists(shift, min_size=1, max_size=5).map(", ".join),
        st.tuples(cell.map(lambda c: f"convert {c}"), st.lists(shift, min_size=1, max_size=5).map(", ".join)).map("; ".join),
    )
    anything = st.one_of(
        words.map(" ".join),
        words.map(", ".join),
        words.map("".join),
        st.text(max_size=40),
        st.lists(st.one_of(st.characters(), st.characters(categories=["Cs"])), max_size=20).map("".join),  # lone surrogates
        st.text(alphabet="ABCDEFabcdef0123456789 ,;up", max_size=40),
        st.sampled_from(["A1 " * 400, "x" * 1001, "C up 2, " * 120]),
    )
    return st.booleans().flatmap(lambda notation_shaped: shaped if notation_shaped else anything)


def any_move() -> st.SearchStrategy[Any]:
    odd = st.sampled_from(ODD)
    return st.one_of(
        move_text(),
        st.lists(move_text(), max_size=5),
        st.lists(st.one_of(move_text(), odd), min_size=1, max_size=5),
        odd,
        st.lists(st.sampled_from(TOKENS), min_size=101, max_size=110),
    )


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=CONFIG_IDS)
@settings(FUZZ, max_examples=100)
@given(data=st.data())
def test_any_move_is_an_answer(client: FlaskClient, name: str, options: Json, data: st.DataObject) -> None:
    game = GAMES[name]
    state, _ = real_state(name, options, data.draw(plies_for(name)), random.Random(data.draw(st.integers(0, 2**32))))
    check_play(client, game, game.dump(state), data.draw(any_move(), label="move"))


# -- new and replay ---------------------------------------------------------------------


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=CONFIG_IDS)
@settings(FUZZ, max_examples=60)
@given(data=st.data())
def test_mutated_options_never_fail(client: FlaskClient, name: str, options: Json, data: st.DataObject) -> None:
    game = GAMES[name]
    state, _ = real_state(name, options, data.draw(plies_for(name)), random.Random(data.draw(st.integers(0, 2**32))))
    body = data.draw(mutated({"options": game.setup_options(state)}), label="body")
    status, answered = answer(client, f"/v1/games/{name}/new", body)
    if status == 200:
        assert round_trips(game, answered["state"]), answered["state"]


def record(name: str, options: Json, plies: int, rnd: random.Random) -> tuple[Json, list[str]]:
    """Options and the moves of a real game from them."""
    options, _, moves = random_game(GAMES[name], options, plies, rnd)
    return options, moves


MOVES_EXTRA = [*ODD, "timeout", "resign 0", "resign 1", "resign 2", "resign", "TIMEOUT", "timeout now", "x" * 1001]


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=CONFIG_IDS)
@settings(FUZZ, max_examples=60)
@given(data=st.data())
def test_mutated_replays_never_fail(client: FlaskClient, name: str, options: Json, data: st.DataObject) -> None:
    game = GAMES[name]
    options, moves = record(name, options, data.draw(plies_for(name)), random.Random(data.draw(st.integers(0, 2**32))))
    body: Json = {"options": options, "moves": moves}
    if data.draw(st.booleans()):
        body = data.draw(mutated(body), label="body")
    else:  # odd entries in the record itself
        for _ in range(data.draw(st.integers(1, 3))):
            body["moves"].insert(data.draw(st.integers(0, len(moves))), data.draw(st.sampled_from(MOVES_EXTRA)))
    status, answered = answer(client, f"/v1/games/{name}/replay", body)
    if status == 200:
        assert round_trips(game, answered["state"]), answered["state"]
        assert answered["valid"] == (answered["first_illegal"] is None)


def test_mutations_reach_nested_values() -> None:
    """The mutator can touch every level of a state: a board cell's value, a
    grid row's text, a colour inside a pair (so the fuzz above is not shallow)."""
    crystal = GAMES["crystal"].dump(real_state("crystal", {}, 4, random.Random(1))[0])
    places = set(paths(crystal))
    assert {("board", 5), ("colors", 1, 0), ("options", "anomalies")} <= places
    catchup = GAMES["catchup"].dump(real_state("catchup", {"size": 3}, 3, random.Random(1))[0])
    assert any(len(p) == 2 and p[0] == "board" for p in paths(catchup))


# -- cases the fuzz found, kept by name ---------------------------------------------------


def crystal_mid_game() -> Json:
    """Player 0 shifted on their first turn of a plain game; player 1 is to move."""
    game = GAMES["crystal"]
    state = game.new({"seed": "cases", "colors": [["red", "green"], ["blue", "yellow"]], "first": 0})
    verdict = game.play(state, "A up 1, 2 left 1, A up 1")
    assert verdict.legal
    return game.dump(verdict.state)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"to_move": 1.0}, "state.to_move"),  # was a TypeError: HTTP 500
        ({"to_move": 0.0}, "state.to_move"),
        ({"first": 0.0}, "state.first"),  # was an AssertionError: HTTP 500
        ({"first": False}, "state.first"),
    ],
)
def test_crystal_player_numbers_are_json_integers(client: FlaskClient, change: Json, field: str) -> None:
    state = {**crystal_mid_game(), **change}
    for path, body in (("play", {"state": state, "move": "B up 1, 3 left 1, B up 1"}), ("legal-moves", {"state": state})):
        status, data = answer(client, f"/v1/games/crystal/{path}", body)
        assert (status, data["error"]["details"]["field"]) == (422, field)


def test_crystal_amount_in_another_script_is_bad_notation(client: FlaskClient) -> None:
    # '\u00b2' (superscript two) passes str.isdigit but not int(): was a ValueError, HTTP 500
    for amount in ("\u00b2", "\u0663"):
        _, verdict = answer(
            client, "/v1/games/crystal/play", {"state": crystal_mid_game(), "move": f"B up {amount}, 3 left 1, B up 1"}
        )
        assert (verdict["legal"], verdict["error"]["code"], verdict["error"]["step"]) == (False, "bad_shift", 0)


def test_crystal_seed_must_be_utf8_text(client: FlaskClient) -> None:
    # JSON carries a lone surrogate; the deal hashes the seed's UTF-8: was a UnicodeEncodeError, HTTP 500
    status, data = answer(client, "/v1/games/crystal/new", {"options": {"seed": "deal\ud800"}})
    assert (status, data["error"]["details"]["field"]) == (422, "options.seed")
