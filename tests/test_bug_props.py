"""Property tests for Bug: random games and random set-up positions.

* In random games, every move ``legal-moves`` lists is accepted by ``play``,
  and no other move is: every single cell, and extensions of listed moves and
  of their proper prefixes, are refused with the code of the first wrong step.
* Each game ends with the player to move stuck, and that player wins (R-B6).
* ``replay`` of the moves reproduces the final state; every state round-trips.
* The listing agrees with a reference written here from the rules' text alone:
  plain sets of cell names, adjacency straight from R-H2 / R-H4, groups by
  breadth-first search, and congruence by brute force (each of the 12
  symmetries as a permutation and sign change of cube coordinates, then a
  translation) - none of the engine's bit sets, tables or canonical forms.
"""

from __future__ import annotations

import random
from itertools import permutations
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import BadOptions, IllegalMove
from engine.games.bug.rules import Bug, BugState

GAME = Bug()

OPTIONS = [
    {"size": 2},
    {"size": 3},
    {"size": 3, "eaters": "all"},
    {"size": 4},
    {"size": 4, "eaters": "all"},
    {"variant": "green-meadow"},
    {"variant": "green-meadow", "eaters": "all"},
]


# -- the reference ---------------------------------------------------------------

Cube = tuple[int, int, int]


class Geometry:
    """Cell names, neighbours and cube coordinates, from R-H1/R-H2 or R-H4."""

    def __init__(self, options: dict[str, Any]) -> None:
        self.cube: dict[str, Cube] = {}
        self.nbrs: dict[str, set[str]] = {}
        if options.get("variant") == "green-meadow":
            black = {"A1", "B1", "A2", "F6", "G5", "G6"}
            for r in range(6):
                for q in range(7):
                    name = f"{chr(65 + q)}{r + 1}"
                    if name not in black:
                        self.cube[name] = (q, r, -q - r)
            for name, (q, r, _) in self.cube.items():
                around = [(q + 1, r), (q - 1, r), (q, r + 1), (q, r - 1), (q + 1, r - 1), (q - 1, r + 1)]
                self.nbrs[name] = {n for n, (a, b, _) in self.cube.items() if (a, b) in around}
        else:
            n = options.get("size", 3)
            length = [n + r if r < n else 3 * n - 2 - r for r in range(2 * n - 1)]
            for r, cells in enumerate(length):
                for i in range(1, cells + 1):
                    self.nbrs[f"{chr(65 + r)}{i}"] = set()
            for r, cells in enumerate(length):
                for i in range(1, cells + 1):
                    here = f"{chr(65 + r)}{i}"
                    near = [(r, i - 1), (r, i + 1)]
                    for r2 in (r - 1, r + 1):
                        if 0 <= r2 < len(length):
                            # R-H2: toward a longer row i and i+1, toward a shorter one i-1 and i
                            near += [(r2, i), (r2, i + 1)] if length[r2] > cells else [(r2, i - 1), (r2, i)]
                    for r2, i2 in near:
                        name = f"{chr(65 + r2)}{i2}"
                        if name in self.nbrs:
                            self.nbrs[here].add(name)
            # cube coordinates: walking right along a row is (+1, -1, 0); down-left is (-1, 0, +1)...
            for r, cells in enumerate(length):
                start = max(0, n - 1 - r)
                for i in range(1, cells + 1):
                    x = start + i - 1
                    self.cube[f"{chr(65 + r)}{i}"] = (x, r, -x - r)
        if options.get("variant") != "green-meadow":
            for a, bs in self.nbrs.items():  # the cube coordinates agree with R-H2
                for b in bs:
                    assert sorted(abs(u - v) for u, v in zip(self.cube[a], self.cube[b], strict=True)) == [0, 1, 1]

    def congruent(self, a: set[str], b: set[str]) -> bool:
        """R-B1 by brute force: try the 12 symmetries, then match by translation."""
        if len(a) != len(b):
            return False
        cb = sorted(self.cube[c] for c in b)
        for perm in permutations(range(3)):
            for sign in (1, -1):
                image = sorted(tuple(sign * self.cube[c][k] for k in perm) for c in a)
                d = [cb[0][k] - image[0][k] for k in range(3)]
                if sorted(tuple(p[k] + d[k] for k in range(3)) for p in image) == cb:
                    return True
        return False


def bugs_of(geo: Geometry, cells: set[str]) -> list[frozenset[str]]:
    out, seen = [], set()
    for start in sorted(cells):
        if start in seen:
            continue
        todo, bug = [start], {start}
        while todo:
            for n in geo.nbrs[todo.pop()]:
                if n in cells and n not in bug:
                    bug.add(n)
                    todo.append(n)
        seen |= bug
        out.append(frozenset(bug))
    return out


def reference_moves(geo: Geometry, position: dict[str, int], blocked: set[str], p: int, eaters: str) -> set[str]:
    """Every complete move (R-B3, R-B4, R-B8), from the rules' text."""
    mine = bugs_of(geo, {c for c, v in position.items() if v == p})
    theirs = bugs_of(geo, {c for c, v in position.items() if v != p})
    largest = max((len(b) for b in mine + theirs), default=0)
    empty = set(geo.nbrs) - set(position) - blocked
    out: set[str] = set()

    def touches(cell: str, bug: frozenset[str]) -> bool:
        return bool(geo.nbrs[cell] & bug)

    def chain(own: list[frozenset[str]], active: int, opp: list[frozenset[str]], free: set[str], prefix: list[str]) -> None:
        due = []
        for i in [active] if eaters == "active" else range(len(own)):
            eater = own[i]
            halo = set().union(*(geo.nbrs[c] for c in eater))
            victims = [o for o in opp if o & halo and geo.congruent(set(eater), set(o))]
            if not victims:
                continue
            vacated = set().union(*victims)
            others = [b for j, b in enumerate(own) if j != i]
            bonus = {c for c in (free | vacated) & halo if not any(touches(c, b) for b in others)}
            if bonus:
                due.append((i, victims, vacated, bonus))
        if not due:
            out.add(" ".join(prefix))
            return
        for i, victims, vacated, bonus in due:
            for c in bonus:
                grown = list(own)
                grown[i] = own[i] | {c}
                chain(grown, active, [o for o in opp if o not in victims], (free | vacated) - {c}, [*prefix, c])

    for c in empty:
        touched = [b for b in mine if touches(c, b)]
        if len(touched) > 1 or (touched and len(touched[0]) + 1 > largest):
            continue
        own = [b for b in mine if b not in touched] + [frozenset({c}).union(*touched)]
        chain(own, len(own) - 1, theirs, empty - {c}, [c])
    return out


def check_against_reference(state: BugState) -> None:
    dumped = GAME.dump(state)
    geo = Geometry(dumped["options"])
    listed = GAME.legal_moves(state).moves
    assert len(set(listed)) == len(listed)
    p = state.to_move if state.to_move is not None else state.winner
    assert p is not None
    if state.phase == "blacken":
        expected = set(geo.nbrs) - set(dumped["blocked"])
    else:
        expected = reference_moves(geo, dumped["board"], set(dumped["blocked"]), p, dumped["options"]["eaters"])
    if state.end == "stuck":
        assert listed == [] and expected == set()  # R-B6: the winner cannot grow
    elif state.end is None:
        assert set(listed) == expected


# -- random games ------------------------------------------------------------------


def check_only_listed_moves_are_accepted(state: BugState, listed: list[str], rnd: random.Random) -> None:
    board = state.board
    every_cell = [board.name(b) for row in board.rows for b in row]  # black and blocked cells too
    complete = {tuple(m.split()) for m in listed}
    prefixes = {m[:k] for m in complete for k in range(1, len(m))} - complete

    def verdict(cells: tuple[str, ...]) -> tuple[bool, str | None, int | None]:
        v = GAME.play(state, " ".join(cells))
        if v.legal:
            return True, None, None
        assert isinstance(v.error, IllegalMove), (cells, v.error)
        return False, v.error.code, v.error.step

    for c in every_cell:
        ok, code, _ = verdict((c,))
        assert ok == ((c,) in complete), c
        if (c,) in prefixes:
            assert code == "must_eat"
    if state.phase == "blacken":
        return
    for prefix in rnd.sample(sorted(prefixes), min(3, len(prefixes))):
        for c in every_cell:
            move = (*prefix, c)
            ok, code, step = verdict(move)
            if move in complete:
                assert ok
            elif move in prefixes:
                assert (code, step) == ("must_eat", len(move)), move
            else:
                assert (code, step) == ("bad_bonus", len(prefix)), move
    for move in rnd.sample(sorted(complete), min(3, len(complete))):
        for c in every_cell:
            ok, code, step = verdict((*move, c))
            assert (ok, code, step) == (False, "no_eat_due", len(move))


@settings(max_examples=25, deadline=None)
@given(st.randoms(use_true_random=False), st.sampled_from(OPTIONS))
def test_random_games(rnd: random.Random, options: dict[str, Any]) -> None:
    state = GAME.new(options)
    played: list[str] = []
    while state.to_move is not None:
        listed = GAME.legal_moves(state).moves
        assert listed, "an ongoing game always has a move"
        check_only_listed_moves_are_accepted(state, listed, rnd)
        if options.get("size", 3) <= 3:
            check_against_reference(state)
        move = rnd.choice(listed)
        verdict = GAME.play(state, move)
        assert verdict.legal and verdict.move == move
        state = verdict.state
        played.append(move)
        dumped = GAME.dump(state)
        assert GAME.load(dumped) == state and GAME.dump(GAME.load(dumped)) == dumped
    # R-B6: the game ends when the player to move cannot grow; that player wins
    assert state.end == "stuck"
    assert state.winner == state.ply % 2  # players alternate from player 0, blackening turns included
    assert not GAME.can_grow(state, state.winner)
    check_against_reference(state)
    replayed = GAME.replay(options, played)
    assert replayed.valid and replayed.plies == len(played)
    assert GAME.dump(replayed.state) == GAME.dump(state)


# -- random set-up positions ---------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from([{"size": 2}, {"size": 3}, {"variant": "green-meadow"}]),
    st.sampled_from(["active", "all"]),
    st.randoms(use_true_random=False),
    st.floats(0.2, 0.9),
    st.sampled_from([0, 1]),
)
def test_set_up_positions_match_the_reference(
    options: dict[str, Any], eaters: str, rnd: random.Random, density: float, to_move: int
) -> None:
    geo = Geometry(options)
    position: dict[str, int] = {}
    blocked: list[str] = []
    for name in sorted(geo.nbrs):
        x = rnd.random()
        if x < 0.05:
            blocked.append(name)
        elif x < density:
            position[name] = rnd.randrange(2)
    try:
        state = GAME.new({**options, "eaters": eaters, "position": position, "blocked": blocked, "to_move": to_move})
    except BadOptions as e:
        assert e.field == "options.to_move"  # an impossible history (see Bug._check_history)
        return
    dumped = GAME.dump(state)
    assert GAME.load(dumped) == state and GAME.dump(GAME.load(dumped)) == dumped
    check_against_reference(state)
