"""Issue 20, cost per request: the shortcuts of a stateless ``play`` keep every answer, for every game
(the figures are in BENCHMARKS.md, measured by ``python -m bench play_parts`` and ``request_cpu``, never here).

* The view returns ``verdict_json``'s dict as it is, no longer dumped through marshmallow's
  ``verdict_response``, and announces from the state as sent, not dumped again after ``load``: its
  answer is byte for byte the one the view made before (:func:`reference`), legal and illegal,
  moves as text and as steps, states with their keys in any order, signed or not.
* A state's board is read on bit sets when nothing in it is wrong (engine/stateio.py
  ``_state_board``); otherwise the walk cell by cell names the first wrong cell, as it always did.
* A group of one stone is found from the board's neighbour table, without a dilation
  (engine/groups.py ``groups``).
* Catchup's ``load`` checks the stone counts and the ply with one range when they fit; otherwise
  ``_check_counts`` and ``_check_ply`` say what does not, blaming the same field as before.
* A show makes its table of sentences once, not on every announcement.
"""

from __future__ import annotations

import copy
import random
from typing import Any, cast

import pytest
from flask import Flask, Response
from gamekit import config_id, option_configs, random_game, random_move
from hypothesis import given, settings
from hypothesis import strategies as st

import views
from engine.errors import BadOptions, BadState, FieldError
from engine.game import Game
from engine.games.catchup.rules import VARIANTS, Catchup, ply_range, reachable
from engine.groups import _grow, groups
from engine.hexboard import HexBoard, green_meadow, hexhex
from engine.registry import GAMES, ROOMS
from engine.stateio import _walk_board, read_board
from service import create_app
from service.web import schemas, signing
from service.web.errors import ApiError

Json = dict[str, Any]

CONFIGS = option_configs()
SECRETS = [None, "issue-20-secret"]
BUDGETS_OFF = {"CREATE_RATE_LIMIT": "off", "RENDER_RATE_LIMIT": "off", "PNG_RATE_LIMIT": "off", "SUGGEST_RATE_LIMIT": "off"}


def reference(app: Flask, g: Game[Any, Any], body: Json) -> bytes:
    """The answer of ``play`` as the view made it before issue 20's shortcuts: the verdict dumped
    through ``verdict_response``, the announcements told from the loaded state dumped again."""
    with app.app_context():
        sent, origin = signing.read(body["state"])
        state = g.load(sent)
        verdict = g.play(state, body["move"])
        error = None if verdict.error is None else verdict.error.to_json()
        after = signing.signed(g.dump(verdict.state), origin)
        out = schemas.verdict_json(verdict.legal, after, move=verdict.move, error=error, events=verdict.events)
        out["announcements"] = views.announcements(g.dump(state), verdict.events, after) if verdict.legal else []
        response = cast(Response, app.json.response(schemas.verdict_response.dump(out)))
        return response.get_data()


def shuffled(value: Any, rnd: random.Random) -> Any:
    """``value`` with the keys of every object in another order (the same JSON to any reader)."""
    if isinstance(value, dict):
        keys = list(value)
        rnd.shuffle(keys)
        return {k: shuffled(value[k], rnd) for k in keys}
    if isinstance(value, list):
        return [shuffled(v, rnd) for v in value]
    return value


ILLEGAL = ["pass", "A1", "Z9", "A1 A1", "timeout", "resign 0", "x", ["pass"], ["A1", "A1"], "E5 E5 E5 E5"]


@pytest.mark.parametrize("secret", SECRETS, ids=["unsigned", "signed"])
@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=[config_id(n, o) for n, o in CONFIGS])
def test_a_play_answers_the_bytes_the_marshmallow_dump_and_the_second_dump_gave(
    name: str, options: Json, secret: str | None
) -> None:
    app = create_app({"TESTING": True, **BUDGETS_OFF, **({"STATE_SECRET": secret} if secret else {})})
    client = app.test_client()
    g = GAMES[name]
    rnd = random.Random(f"{name}-{sorted(options.items())}-{secret}")
    replay_options, _, moves = random_game(g, options, 200, rnd)
    state = client.post(f"/v1/games/{name}/new", json={"options": replay_options}).get_json()["state"]
    checked = {"legal": 0, "illegal": 0}
    for ply, move in enumerate([*moves, None]):
        if ply % 3 == 0 or move is None:  # a third of the positions, and the last (finished, or 200 plies on)
            loaded = g.load({k: v for k, v in state.items() if k not in (signing.FIELD, signing.ORIGIN)})
            tries: list[Any] = [rnd.choice(ILLEGAL)]
            if not g.is_over(loaded):
                legal = random_move(g, loaded, rnd)
                tries += [legal, g.split_move(legal), f"  {legal.lower()} "]
            for tried in tries:
                for sent in (state, shuffled(state, rnd)):
                    body = {"state": copy.deepcopy(sent), "move": tried}
                    got = client.post(f"/v1/games/{name}/play", json=body)
                    assert got.status_code == 200, got.get_data(as_text=True)
                    assert got.get_data() == reference(app, g, body), (ply, tried)
                    checked["legal" if got.get_json()["legal"] else "illegal"] += 1
        if move is not None:
            answer = client.post(f"/v1/games/{name}/play", json={"state": state, "move": move}).get_json()
            assert answer["legal"], answer
            state = answer["state"]
    assert checked["illegal"] > 0
    assert checked["legal"] > 0 or not moves


@pytest.mark.parametrize("name", list(GAMES))
def test_every_verdict_is_already_what_verdict_response_dumps(name: str) -> None:
    """What let the view stop dumping: for real verdicts of every game, legal and illegal, dumping
    ``verdict_json``'s dict through ``verdict_response`` gives it back unchanged, key order and
    JSON types included."""
    g = GAMES[name]
    rnd = random.Random(name)
    app = create_app({"TESTING": True, **BUDGETS_OFF})
    seen = set()
    for _ in range(4):
        _, state, _ = random_game(g, {}, rnd.randrange(0, 30), rnd)
        for tried in [*ILLEGAL[:4], *([] if g.is_over(state) else [random_move(g, state, rnd)])]:
            v = g.play(state, tried)
            after = g.dump(v.state)
            error = None if v.error is None else v.error.to_json()
            out = schemas.verdict_json(v.legal, after, move=v.move, error=error, events=v.events)
            out["announcements"] = views.announcements(g.dump(state), v.events, after) if v.legal else []
            dumped = schemas.verdict_response.dump(out)
            assert dumped == out
            with app.app_context():
                assert app.json.dumps(dumped) == app.json.dumps(out)  # the same text: key order, 1 not 1.0
            seen.add(v.legal)
    assert seen == {True, False}


# -- a state's board: on bit sets when nothing is wrong, else cell by cell -------------------------------

BOARDS = [hexhex(3), hexhex(5), green_meadow()]
NEAR_MISSES = st.sampled_from([2, -1, True, False, 1.0, 0.0, None, "0", [0]])


@st.composite
def boards(draw: st.DrawFn) -> tuple[int, Any, int]:
    """A board as a state holds it (each occupied cell, 0 or 1, none blocked), then up to three
    near misses: a cell spelt in lower case or not at all, a black cell (R-H4), a blocked one, a
    value that is not the integer 0 or 1."""
    which = draw(st.integers(0, len(BOARDS) - 1))
    board = BOARDS[which]
    names = [board.name(b) for b in board.cells]
    black = [board.name(b) for b in board.labels if board.black >> b & 1]
    cells = draw(st.lists(st.sampled_from(names), unique=True, max_size=12))
    raw: dict[Any, Any] = {c: draw(st.sampled_from([0, 1])) for c in cells}
    blocked = 0
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["lower", "unknown", "black", "blocked", "blocked-free", "value"]))
        if kind in ("lower", "unknown", "black"):
            name = {
                "lower": draw(st.sampled_from(names)).lower(),
                "unknown": draw(st.sampled_from(["Z1", "A0", "A01", "a", "", "E55", " E5", "E5 "])),
                "black": draw(st.sampled_from(black or names)),
            }[kind]
            raw[name] = draw(st.sampled_from([0, 1]))
        elif kind.startswith("blocked"):
            free = [b for b in board.cells if board.name(b) not in raw] if kind == "blocked-free" else []
            pick = free or [board.index[c] for c in raw if c in board.index] or list(board.cells)
            blocked |= 1 << draw(st.sampled_from(pick))
        elif raw:
            raw[draw(st.sampled_from(list(raw)))] = draw(NEAR_MISSES)
    if draw(st.booleans()):  # the same cells in another order: the walk names the first wrong one as given
        keys = draw(st.permutations(list(raw)))
        raw = {k: raw[k] for k in keys}
    return which, raw, blocked


def outcome(read: Any, *args: Any, **kwargs: Any) -> Any:
    """What ``read(*args, **kwargs)`` gives: its bit sets, or its error's kind, field and sentence."""
    try:
        return read(*args, **kwargs)
    except FieldError as e:
        return type(e), e.field, e.message


@settings(max_examples=400, deadline=None)
@given(boards())
def test_a_state_board_is_read_as_the_walk_cell_by_cell_reads_it(case: tuple[int, Any, int]) -> None:
    which, raw, blocked = case
    board = BOARDS[which]
    for err in (BadState, BadOptions):
        fast = outcome(read_board, board, raw, blocked, "state.board", err, piece="stone")
        walked = outcome(_walk_board, board, raw, blocked, "state.board", err, "stone")
        assert fast == walked


def test_a_right_board_and_a_wrong_one_still_read_as_before() -> None:
    board = hexhex(5)
    assert read_board(board, {"E5": 0, "D4": 1, "A1": 1}, 0, "state.board", BadState, piece="stone") == (
        1 << board.parse_cell("E5"),
        1 << board.parse_cell("D4") | 1 << board.parse_cell("A1"),
    )
    with pytest.raises(BadState) as got:  # the first wrong cell in the order given, not the first on the board
        read_board(board, {"E5": 0, "e4": 1, "A1": 2}, 0, "state.board", BadState, piece="stone")
    assert got.value.field == "state.board.e4"
    with pytest.raises(BadState) as got:
        read_board(board, {"E5": 0, "A1": 1}, 1 << board.parse_cell("A1"), "state.board", BadState, piece="stone")
    assert (got.value.field, got.value.message) == ("state.board.A1", "A1 is blocked, so no stone can be on it.")


# -- groups: a lone stone without a dilation --------------------------------------------------------


def dilated_groups(board: HexBoard, stones: int) -> list[int]:
    """Every group as engine/groups.py found them before issue 20: each grown from its lowest bit
    by dilation alone."""
    out, rest = [], stones
    while rest:
        grp = _grow(board.width, rest & -rest, stones)
        out.append(grp)
        rest &= ~grp
    return out


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_groups_are_the_groups_dilation_alone_finds(data: st.DataObject) -> None:
    """The same groups in the same order, on playing cells, and with black cells or the padding
    column between rows among the bits (where the neighbour table, of playing cells, is not used)."""
    board = data.draw(st.sampled_from(BOARDS))
    every = list(range(board.width * len(board.rows)))
    cells = data.draw(st.sets(st.sampled_from(board.cells if data.draw(st.booleans()) else every)))
    stones = sum(1 << b for b in cells)
    assert groups(board, stones) == dilated_groups(board, stones)


# -- Catchup: the stone counts and the ply in one range ------------------------------------------------


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 40), st.integers(0, 40), st.integers(0, 1), st.integers(0, 90))
def test_the_one_range_passes_exactly_the_positions_the_two_checks_pass(
    variant: str, c0: int, c1: int, to_move: int, ply: int
) -> None:
    """R-C1: ``load`` of an ongoing game skips ``_check_counts`` and ``_check_ply`` when ``reachable``
    says the position is; they must raise exactly when it is not."""
    fits = reachable(variant, c0, c1, to_move, ply)
    try:
        Catchup._check_counts(variant, c0, c1, to_move, "state.board", "state.to_move", BadState)
        Catchup._check_ply(variant, c0, c1, ply, to_move, "state.to_move")
    except BadState:
        assert not fits
    else:
        assert fits


def test_the_one_range_is_ply_range_asked_of_every_count_and_ply() -> None:
    """R-C1: ``reachable``'s arithmetic (turns from the ply, stones from the turns) answers as
    ``ply_range``, which bounds the plies by the stones, for every variant, count and ply up to a
    side-5 board's 61 cells: a position ``load`` passes without the two named checks is one they pass."""
    for variant in VARIANTS:
        for c0 in range(31):
            for c1 in range(31):
                for to_move in (0, 1):
                    plies = ply_range(variant, c0, c1, to_move)
                    for ply in range(62):
                        fits = plies is not None and plies[0] <= ply <= plies[1] and ply % 2 == to_move
                        assert reachable(variant, c0, c1, to_move, ply) == fits, (variant, c0, c1, to_move, ply)


# -- announcements: the table of sentences made once ------------------------------------------------


def test_a_show_makes_its_table_of_sentences_once_not_for_every_announcement(monkeypatch: pytest.MonkeyPatch) -> None:
    g = GAMES["catchup"]
    show = ROOMS["catchup"].show
    show.__dict__.pop("handler_table", None)  # as a fresh process has it
    made: list[int] = []
    real = type(show).handlers

    def counting(self: Any) -> Any:
        made.append(1)
        return real(self)

    monkeypatch.setattr(type(show), "handlers", counting)
    state = g.new({})
    for move in ("E5", "D4 F6", "C3 G7"):
        before = g.dump(state)
        v = g.play(state, move)
        assert v.legal
        said = views.announcements(before, v.events, g.dump(v.state))
        assert said and not any("no sentence" in s for s in said)
        state = v.state
    assert len(made) == 1
    show.__dict__.pop("handler_table", None)  # the next reader makes it with the real handlers


def _read_as_before(state: Any, keys: tuple[str, ...], required: bool = True) -> tuple[Any, str] | str:
    """signing.read before issue 20's shortcut (a copy of every state, always), its refusals as their codes."""
    sig, origin = state.get(signing.FIELD), state.get(signing.ORIGIN, signing.SETUP)
    if signing.FIELD in state and not (isinstance(sig, str) and signing.SIG.fullmatch(sig)):
        return "bad sig"
    if origin not in signing.ORIGINS:
        return "bad origin"
    rest = {k: v for k, v in state.items() if k not in (signing.FIELD, signing.ORIGIN)}
    if not keys or (sig is None and not required):
        return rest, signing.SETUP
    return "signed"  # checked against the secret: the same code either way


@settings(max_examples=300, deadline=None)
@given(
    st.fixed_dictionaries(
        {"board": st.just({"a1": 0})},
        optional={
            signing.FIELD: st.sampled_from(["0" * 64, "nope", 7]),
            signing.ORIGIN: st.sampled_from([signing.START, signing.SETUP, "made up"]),
        },
    ),
    st.sampled_from(SECRETS),
    st.booleans(),
)
def test_a_state_is_read_for_its_signature_as_before_and_copied_only_when_it_must_be(
    state: Json, secret: str | None, required: bool
) -> None:
    app = create_app({"TESTING": True, **({"STATE_SECRET": secret} if secret else {})})
    with app.app_context():
        expected = _read_as_before(state, signing.secrets_in_use(), required)
        try:
            got: tuple[Any, str] | str = signing.read(state, required=required)
        except ApiError as e:
            got = e.code
    if expected in ("bad sig", "bad origin"):
        assert got == "bad_signature"
        return
    if expected == "signed":  # the signature's own check, which the shortcut never reaches
        return
    assert got == expected
    assert isinstance(got, tuple)
    if not secret and signing.FIELD not in state and signing.ORIGIN not in state:
        assert got[0] is state  # nothing to take out: no copy (the shortcut)
