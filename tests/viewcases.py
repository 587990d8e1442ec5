"""Positions the view tests share, and the golden pictures made from them.

The boards are those of the engine tests (seed 000's worked example and
tie-break boards from ``tests/test_catchup.py``, seed 002's example from
``tests/test_bug.py``, seed 003's scoring example from
``tests/test_crystal.py``), played through the engine.  Plur and Too have
no engine yet: their states are written by hand in the JSON of the spec
(:func:`plur_state`, :func:`too_state`), their group sizes counted by
``engine.groups``.

``python tests/viewcases.py`` (``make golden``) writes every case's
SVG to ``tests/golden/``; ``test_views_svg.py`` compares them byte for byte.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the engine tests' boards (test_catchup, test_bug, test_crystal), run as a script too

from test_bug import SEED as BUG_SEED  # noqa: E402
from test_catchup import TIE_BREAK_1, WORKED_EXAMPLE  # noqa: E402
from test_crystal import IDENTITY_B, SEED_EXAMPLE  # noqa: E402
from test_product import EQUAL_BLACK_FEWER  # noqa: E402

from engine import get_game  # noqa: E402
from engine.games.crystal.grid import shift_text  # noqa: E402
from engine.groups import group_sizes  # noqa: E402
from engine.hexboard import hexhex  # noqa: E402

GOLDEN = HERE / "golden"
Json = dict[str, Any]
Move = tuple[Json | None, list[Json], Json]  # before, events, after

CATCHUP = get_game("catchup")
BUG = get_game("bug")
CRYSTAL = get_game("crystal")
PRODUCT = get_game("product")
ALL_ANOMALIES = ["bombs", "chameleons", "color-convertor", "pylons", "rocks", "shift-plus", "spikes"]


def position(diagram: str, size: int) -> tuple[dict[str, int], list[str]]:
    """A diagram (``X``/``B`` player 0 or black, ``O``/``W`` player 1 or white, ``#`` blocked) as a board and blocked list."""
    board = hexhex(size)
    marks, blocked = board.parse_diagram(diagram, {"X": 0, "O": 1, "B": 0, "W": 1})
    return {board.name(b): v for b, v in sorted(marks.items())}, board.names(blocked)


def play(game: Any, state: Any, *moves: str) -> tuple[Any, list[Move]]:
    """Play ``moves`` through the engine; the engine state and each move's (before, events, after) JSON."""
    out: list[Move] = []
    for m in moves:
        verdict = game.play(state, m)
        assert verdict.legal, (m, verdict.error)
        out.append((game.dump(state), list(verdict.events), game.dump(verdict.state)))
        state = verdict.state
    return state, out


# -- Catchup (seed 000) ------------------------------------------------------------------


def catchup_worked_example() -> list[Move]:
    """Seed 000's worked example: Red B4 B5, Blue D7 F8, Red B3 C1 D2, Blue F2 G7 H6."""
    board, _ = position(WORKED_EXAMPLE, 5)
    state = CATCHUP.new({"size": 5, "position": board})
    return play(CATCHUP, state, "B4 B5", "D7 F8", "B3 C1 D2", "F2 G7 H6")[1]


def catchup_last_stone(diagram: str, player: int) -> Move:
    """A full tie-break board (seed 000) with one stone of ``player`` taken out
    (a lone stone if it has one, so the groups stay as drawn) and put back:
    the move that fills the board."""
    board, _ = position(diagram, 5)
    b = hexhex(5)
    own = [b.parse_cell(c) for c, v in board.items() if v == player]
    lone = [c for c in own if not b.neighbours[c] & sum(1 << x for x in own)]
    cell = b.name(lone[0] if lone else b.parse_cell("E5"))
    del board[cell]
    state = CATCHUP.new({"size": 5, "position": board, "to_move": player})
    return play(CATCHUP, state, cell)[1][0]


# -- Bug (seed 002) ------------------------------------------------------------------------


def bug_seed_example() -> list[Move]:
    """Seed 002: Blue B1 eats Red's bend 3-bug A3-B4-C4 and grows to B3; Red C2 eats and grows to C3."""
    board, _ = position(BUG_SEED, 3)
    state = BUG.new({"size": 3, "position": board, "to_move": 1})
    return play(BUG, state, "B1 B3", "C2 C3")[1]


def bug_green_meadow() -> Move:
    """Green Meadow: D4 and C3 blackened, a few grows, then Blue B4 eats Red C4 and grows back onto it."""
    state = BUG.new({"variant": "green-meadow"})
    return play(BUG, state, "D4", "C3", "C4", "E2", "B3", "B4 C4")[1][-1]


# -- Crystal Connector (seed 003) ------------------------------------------------------------


def crystal_seed_example(**fields: Any) -> Any:
    """Seed 003's grid: Player 1 red+green (7 x 5 = 35), Player 2 blue+yellow (2 x 4 = 8); ``fields`` change the JSON."""
    state = CRYSTAL.new({"grid": SEED_EXAMPLE, "colors": [["red", "green"], ["blue", "yellow"]], "first": 0})
    if not fields:
        return state
    data = CRYSTAL.dump(state)
    data.update(fields)
    return CRYSTAL.load(data)


def crystal_anomalies() -> Move:
    """Every anomaly on the grid; Player 1 converts a crystal and shifts."""
    state = CRYSTAL.new(
        {"seed": "views", "anomalies": ALL_ANOMALIES, "colors": [["red", "green"], ["blue", "yellow"]], "first": 0}
    )
    return play(CRYSTAL, state, "convert E1; C down 1, 3 right 2")[1][0]


def crystal_finished() -> Move:
    """The seed example near the threshold: the round's last turn ends the game."""
    state = crystal_seed_example(scores=[230, 200], turns=[7, 6], ply=13, to_move=1)
    return play(CRYSTAL, state, IDENTITY_B)[1][0]


def crystal_draft() -> Move:
    state = CRYSTAL.new({"seed": "draft"})
    return play(CRYSTAL, state, "second", "yellow")[1][-1]


# -- Plur and Too: JSON by hand, as the spec writes it ------------------------------------------


def _sizes(board: dict[str, int], size: int, value: int) -> list[int]:
    b = hexhex(size)
    bits = sum(1 << b.parse_cell(c) for c, v in board.items() if v == value)
    return group_sizes(b, bits)


def plur_state(diagram: str, size: int = 5, *, pie: bool = False, ply: int | None = None) -> Json:
    """A Plur state (RULES R-E1) from a diagram: ``B`` black (player 0), ``W`` white, ``#`` blocked."""
    from engine.games.plur.rules import ladder_winner, size_ladder

    board, blocked = position(diagram, size)
    g0, g1 = _sizes(board, size, 0), _sizes(board, size, 1)
    cells = 3 * size * (size - 1) + 1 - len(blocked)
    full = len(board) == cells
    n0 = sum(1 for v in board.values() if v == 0)
    n1 = len(board) - n0
    winner = ladder_winner(size_ladder(g0, g1)) if full else None
    return {
        "game": "plur",
        "version": 1,
        "options": {"size": size, "pie": pie},
        "status": "finished" if full else "ongoing",
        "to_move": None if full else (0 if n0 == n1 else 1),
        "ply": len(board) if ply is None else ply,
        "winner": winner,
        "end": "full" if full else None,
        "scores": [g0, g1],
        "board": board,
        "blocked": blocked,
    }


def plur_end_event(state: Json) -> Json:
    from engine.games.plur.rules import size_ladder

    g0, g1 = state["scores"]
    return {"type": "end", "winner": state["winner"], "end": "full", "groups": [g0, g1], "ladder": size_ladder(g0, g1)}


def too_state(diagram: str, size: int = 5, *, to_move: int | None = None) -> Json:
    """A Too state (RULES R-E2): ``B`` black stone, ``W`` white stone, whoever placed them."""
    from engine.games.too.rules import second_largest as second

    board, blocked = position(diagram, size)
    b2, w2 = second(_sizes(board, size, 0)), second(_sizes(board, size, 1))
    cells = 3 * size * (size - 1) + 1 - len(blocked)
    full = len(board) == cells
    return {
        "game": "too",
        "version": 1,
        "options": {"size": size},
        "status": "finished" if full else "ongoing",
        "to_move": None if full else (len(board) % 2 if to_move is None else to_move),
        "ply": len(board),
        "winner": (0 if b2 > w2 else 1) if full else None,
        "end": "full" if full else None,
        "scores": [b2, w2],
        "board": board,
        "blocked": blocked,
    }


PLUR_MIDGAME = """
    B W . . .
   . B W . . .
  . . B W . . .
 . . . B W . . .
. . . . B W . . .
 . . . . . . . .
  . . . . . . .
   . . . . . .
    . . . . .
"""

# A full side-3 board: black 9-1, white 3-2-2-2.  The 3rd and 4th largest groups
# are equal (2, 2), so the count goes on to 5 (9 3 2 2 2): black 1, white 4.
PLUR_FULL = """
  W B W
 B W B W
W B B B B
 W B W W
  B W B
"""

TOO_MIDGAME = """
    B B . . .
   . . W . . .
  . B . W . . .
 . B . . W . . .
. . . . . . . . .
 . . W W . B . .
  . . . . . B .
   . . . . . .
    . . . . .
"""

# Black 5-3, white 9-2: black's second-largest (3) beats white's (2).
TOO_FULL = """
  W B B
 W W W B
B W W W W
 B B B W
  W W B
"""


def plur_midgame() -> Move:
    state = plur_state(PLUR_MIDGAME)
    return None, [{"type": "place", "player": 1, "cells": ["E6"]}], state


def plur_finished() -> Move:
    state = plur_state(PLUR_FULL, 3)
    place = {"type": "place", "player": 0, "cells": ["E3"]}
    return None, [place, plur_end_event(state)], state


def too_midgame() -> Move:
    state = too_state(TOO_MIDGAME)
    return None, [{"type": "place", "player": 0, "color": "white", "cells": ["F4"]}], state


def too_finished() -> Move:
    state = too_state(TOO_FULL, 3)
    end = {"type": "end", "winner": state["winner"], "end": "full", "second": state["scores"]}
    return None, [{"type": "place", "player": 0, "color": "black", "cells": ["E3"]}, end], state


def product_midgame() -> Move:
    """A side-5 game five turns in, the last Black's B D4 and W E5 (R-E4)."""
    state = PRODUCT.new({})
    return play(PRODUCT, state, "B C3", "B C4 W E6", "W A1 B G3", "W A2 B G4", "B D4 W E5")[1][-1]


def product_finished() -> Move:
    """tests/test_product.py's equal products (8 each) and its last turn: black wins with fewer stones (R-E4a)."""
    board, _ = position(EQUAL_BLACK_FEWER, 3)
    del board["E1"], board["E3"]
    return play(PRODUCT, PRODUCT.new({"size": 3, "position": board}), "W E3 B E1")[1][-1]


# -- the golden pictures --------------------------------------------------------------------------


def golden_cases() -> dict[str, Callable[[], tuple[Json, dict[str, Any]]]]:
    """name -> (state, keywords of views.svg)."""

    def case(move: Callable[[], Move], **kw: Any) -> Callable[[], tuple[Json, dict[str, Any]]]:
        def make() -> tuple[Json, dict[str, Any]]:
            _, events, after = move()
            return after, {"events": events, **kw}

        return make

    def blocked_catchup() -> Move:
        board, blocked = position(
            """
              X . #
             . O # .
            # . X . #
             . O . .
              . # .
            """,
            3,
        )
        state = CATCHUP.new({"size": 3, "position": board, "blocked": blocked, "to_move": 1})
        return play(CATCHUP, state, "D1 E1")[1][0]

    return {
        "catchup-midgame": case(lambda: catchup_worked_example()[1]),
        "catchup-finished": case(lambda: catchup_last_stone(TIE_BREAK_1, 0)),
        "catchup-blocked-print": case(blocked_catchup, palette="print"),
        "catchup-side10-coords": case(lambda: play(CATCHUP, CATCHUP.new({"size": 10}), "J10", "I9 K10")[1][-1], coords=True),
        "bug-eat": case(lambda: bug_seed_example()[0]),
        "bug-eat-colorblind-coords": case(lambda: bug_seed_example()[1], palette="colorblind", coords=True),
        "bug-green-meadow": case(bug_green_meadow),
        "crystal-anomalies": case(crystal_anomalies),
        "crystal-finished": case(crystal_finished),
        "crystal-draft-colorblind": case(crystal_draft, palette="colorblind"),
        "crystal-anomalies-print": case(crystal_anomalies, palette="print"),
        "plur-midgame": case(plur_midgame),
        "plur-finished-print": case(plur_finished, palette="print"),
        "too-midgame-colorblind": case(too_midgame, palette="colorblind"),
        "too-finished": case(too_finished),
        "product-midgame": case(product_midgame),
        "product-finished-colorblind": case(product_finished, palette="colorblind"),
    }


def main() -> None:
    import views

    GOLDEN.mkdir(exist_ok=True)
    for name, make in golden_cases().items():
        state, kw = make()
        (GOLDEN / f"{name}.svg").write_text(views.svg(state, **kw), encoding="utf-8")
        print(f"wrote {GOLDEN.name}/{name}.svg")


if __name__ == "__main__":
    main()


# -- random games, for the property tests and the walk over every event ---------------------------


def random_catchup(rng: Any, variant: str = "standard", size: int = 5, plies: int | None = None) -> list[Move]:
    """A random game through the engine (to the full board, or ``plies`` moves)."""
    state = CATCHUP.new({"size": size, "variant": variant})
    out: list[Move] = []
    while not CATCHUP.is_over(state) and (plies is None or len(out) < plies):
        empty = CATCHUP.legal_moves(state).moves
        k = rng.randint(1, CATCHUP.max_stones(state))
        verdict = CATCHUP.play(state, rng.sample(empty, k))
        if not verdict.legal:  # bolanos refuses some two-stone turns (R-C3)
            verdict = CATCHUP.play(state, rng.choice(empty))
        out.append((CATCHUP.dump(state), list(verdict.events), CATCHUP.dump(verdict.state)))
        state = verdict.state
    return out


def random_bug(rng: Any, options: Json, plies: int | None = None) -> list[Move]:
    state = BUG.new(options)
    out: list[Move] = []
    while not BUG.is_over(state) and (plies is None or len(out) < plies):
        move = rng.choice(BUG.legal_moves(state).moves)
        verdict = BUG.play(state, move)
        assert verdict.legal, (move, verdict.error)
        out.append((BUG.dump(state), list(verdict.events), BUG.dump(verdict.state)))
        state = verdict.state
    return out


def random_crystal(rng: Any, anomalies: list[str], plies: int | None = None, seed: str = "walk") -> list[Move]:
    """A random game from the draft on; each turn's shifts are legal one after the other (rocks move)."""
    state = CRYSTAL.new({"seed": seed, "anomalies": anomalies})
    out: list[Move] = []
    while not CRYSTAL.is_over(state) and (plies is None or len(out) < plies):
        listed = CRYSTAL.legal_moves(state)
        if state.phase != "shift":
            move = rng.choice(listed.moves)
        else:
            shifts = []
            now = state
            for _ in range(listed.info["shifts_due"]):
                shift = rng.choice(CRYSTAL.legal_shifts(now))
                shifts.append(shift_text(shift.file, shift.sign, shift.amount))
                now = CRYSTAL.shifted(now, shift)
            move = ", ".join(shifts)
            if listed.info.get("converts") and rng.random() < 0.3:
                move = f"{rng.choice(listed.info['converts'])}; {move}"
        verdict = CRYSTAL.play(state, move)
        assert verdict.legal, (move, verdict.error)
        out.append((CRYSTAL.dump(state), list(verdict.events), CRYSTAL.dump(verdict.state)))
        state = verdict.state
    return out


def random_plur(rng: Any, size: int = 3, pie: bool = False, plies: int | None = None) -> list[Move]:
    """Plur by hand (R-E1, R-E1a): any empty cell is legal; events and states as the spec writes them."""
    board: dict[str, int] = {}
    state = plur_state("\n".join(" ".join("." for _ in row) for row in hexhex(size).rows), size, pie=pie)
    cells = [hexhex(size).name(b) for b in hexhex(size).cells]
    out: list[Move] = []
    while state["status"] == "ongoing" and (plies is None or len(out) < plies):
        p = state["to_move"]
        if pie and state["ply"] == 1 and rng.random() < 0.5:
            (cell,) = board
            board[cell] = 1
            events: list[Json] = [{"type": "swap", "player": 1, "cell": cell}]
            to_move = 0
        else:
            cell = rng.choice([c for c in cells if c not in board])
            board[cell] = p
            events = [{"type": "place", "player": p, "cells": [cell]}]
            to_move = 1 - p
        after = _plur_from(board, size, pie, state["ply"] + 1, to_move)
        if after["status"] == "finished":
            events.append(plur_end_event(after))
        out.append((state, events, after))
        state = after
    return out


def _plur_from(board: dict[str, int], size: int, pie: bool, ply: int, to_move: int) -> Json:
    from engine.games.plur.rules import ladder_winner, size_ladder

    g0, g1 = _sizes(board, size, 0), _sizes(board, size, 1)
    full = len(board) == 3 * size * (size - 1) + 1
    return {
        "game": "plur",
        "version": 1,
        "options": {"size": size, "pie": pie},
        "status": "finished" if full else "ongoing",
        "to_move": None if full else to_move,
        "ply": ply,
        "winner": ladder_winner(size_ladder(g0, g1)) if full else None,
        "end": "full" if full else None,
        "scores": [g0, g1],
        "board": dict(sorted(board.items())),
        "blocked": [],
    }


def random_too(rng: Any, size: int = 3, plies: int | None = None) -> list[Move]:
    from engine.games.too.rules import second_largest as second

    board: dict[str, int] = {}
    cells = [hexhex(size).name(b) for b in hexhex(size).cells]
    state = too_state("\n".join(" ".join("." for _ in row) for row in hexhex(size).rows), size)
    out: list[Move] = []
    while state["status"] == "ongoing" and (plies is None or len(out) < plies):
        p = state["to_move"]
        cell = rng.choice([c for c in cells if c not in board])
        colour = rng.randint(0, 1)
        board[cell] = colour
        b2, w2 = second(_sizes(board, size, 0)), second(_sizes(board, size, 1))
        full = len(board) == len(cells)
        after = {
            **state,
            "status": "finished" if full else "ongoing",
            "to_move": None if full else 1 - p,
            "ply": state["ply"] + 1,
            "winner": (0 if b2 > w2 else 1) if full else None,
            "end": "full" if full else None,
            "scores": [b2, w2],
            "board": dict(sorted(board.items())),
        }
        events: list[Json] = [{"type": "place", "player": p, "color": ("black", "white")[colour], "cells": [cell]}]
        if full:
            events.append({"type": "end", "winner": after["winner"], "end": "full", "second": [b2, w2]})
        out.append((state, events, after))
        state = after
    return out


def random_product(rng: Any, options: Json, plies: int | None = None) -> list[Move]:
    """A random game of Product through the engine (to the full board, or ``plies`` moves)."""
    state = PRODUCT.new(options)
    out: list[Move] = []
    while not PRODUCT.is_over(state) and (plies is None or len(out) < plies):
        cells = PRODUCT.next_steps(state, []).steps
        picked: list[str] = []
        while len(picked) < state.stones_due:
            step = rng.choice(cells)
            if step[2:] not in {p[2:] for p in picked}:
                picked.append(step)
        state, moved = play(PRODUCT, state, " ".join(picked))
        out += moved
    return out
