"""The Crystal Connector grid (engine/games/crystal/grid.py): the seeded deal (R-X1,
R-X5), shifts (R-X2) and group values (R-H5, R-X3, R-X5) checked against a
plain breadth-first search over the six strings."""

from __future__ import annotations

import hashlib
import itertools
from collections import deque

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.games.crystal import grid as cg
from engine.games.crystal.rules import ANOMALIES, Crystal

GAME = Crystal()
ALL_SEVEN = list(ANOMALIES)


# -- the deal ----------------------------------------------------------------------------


def test_golden_deals() -> None:  # R-X1: same seed, same options, same grid - on every machine and version
    # Stability is the behaviour under test, so these values are pinned: if one
    # changes, every recorded game dealt from a seed would change with it.
    assert cg.render(cg.deal("golden", [])) == ["YYBRGG", "YRYGRB", "RRYGRY", "GBBBGG", "RYGBRB", "YBBRGY"]
    assert cg.render(cg.deal("golden", ["rocks"])) == ["BGGYBY", "GBY#GY", "RBRRR#", "BGRRRY", "#GYRGB", "GBBY#Y"]
    assert cg.render(cg.deal("golden", ALL_SEVEN)) == ["#R+Grg", "GYR@GR", "GBY#RB", "Bry+#B", "+#+gbY", "@*Yy*b"]


def documented_deal(seed: str) -> list[str]:
    """The no-anomaly deal, written again from the algorithm's description in
    engine/games/crystal/grid.py (SHA-256 counter stream, rejection sampling, Fisher-Yates)."""
    key = b"crystal-connector/grid/v1\x00" + seed.encode() + b"\x00"
    words: list[int] = []
    for block in itertools.count():
        digest = hashlib.sha256(key + block.to_bytes(8, "big")).digest()
        words.extend(int.from_bytes(digest[i : i + 4], "big") for i in range(0, 32, 4))
        if len(words) > 200:
            break
    stream = iter(words)

    def below(n: int) -> int:
        while True:
            w = next(stream)
            if w < 2**32 - 2**32 % n:
                return w % n

    pieces = list("R" * 9 + "B" * 9 + "G" * 9 + "Y" * 9)
    for i in range(35, 0, -1):
        j = below(i + 1)
        pieces[i], pieces[j] = pieces[j], pieces[i]
    return ["".join(pieces[r * 6 : r * 6 + 6]) for r in range(6)]


def test_deal_follows_its_documented_algorithm() -> None:  # R-X1
    for seed in ("golden", "0", "x" * 50, "ünïcode"):
        assert cg.render(cg.deal(seed, [])) == documented_deal(seed)


def test_every_combination_of_anomalies_fits_with_exact_counts() -> None:  # R-X5
    for r in range(len(ALL_SEVEN) + 1):
        for combo in itertools.combinations(ALL_SEVEN, r):
            for seed in ("a", "b"):
                rows = cg.render(cg.deal(seed, list(combo)))
                text = "".join(rows)
                want = cg.piece_counts(combo)
                assert [text.upper().count(s) for s in cg.SYMBOLS] == list(want[:8])
                assert sum(ch.islower() for ch in text) == want[cg.SPIKES]
                if "spikes" in combo:
                    assert all(text.count(s) == 2 for s in "rbgy")  # two of each colour
                GAME.new({"grid": rows, "anomalies": list(combo)})  # a valid set-up grid


def test_rocks_are_dealt_on_four_rows_and_four_columns() -> None:  # R-X5 rocks
    for i in range(200):
        rows = cg.render(cg.deal(f"rocks{i}", ["rocks", "pylons"]))
        cells = [(r, c) for r in range(6) for c in range(6) if rows[r][c] == "#"]
        assert len(cells) == 4
        assert len({r for r, _ in cells}) == 4 and len({c for _, c in cells}) == 4


def test_seed_recorded_and_reproducible() -> None:  # R-X1
    drawn = GAME.dump(GAME.new({}))
    assert isinstance(drawn["seed"], str) and len(drawn["seed"]) == 32
    assert GAME.dump(GAME.new({}))["seed"] != drawn["seed"]  # drawn from a cryptographic source each time
    again = GAME.dump(GAME.new({"seed": drawn["seed"]}))
    assert again["board"] == drawn["board"]
    assert GAME.dump(GAME.new({"seed": 42}))["board"] == GAME.dump(GAME.new({"seed": "42"}))["board"]
    assert GAME.dump(GAME.new({"seed": 42}))["seed"] == "42"
    assert GAME.dump(GAME.new({"seed": "a"}))["board"] != GAME.dump(GAME.new({"seed": "b"}))["board"]
    # the anomalies are part of the options: the order they are listed in is not
    a = GAME.dump(GAME.new({"seed": "s", "anomalies": ["spikes", "bombs"]}))
    b = GAME.dump(GAME.new({"seed": "s", "anomalies": ["bombs", "spikes"]}))
    assert a["board"] == b["board"]
    assert a["options"] == {"anomalies": ["bombs", "spikes"]}


# -- shifts --------------------------------------------------------------------------------


def test_column_and_row_shifts_on_a_drawn_grid() -> None:  # R-X2
    grid = cg.parse_rows(["RBGYRB", "GYRBGY", "RRRRRR", "BBBBBB", "GGGGGG", "YYYYYY"])
    down2 = cg.render(cg.shift(grid, cg.FILE_INDEX["A"], 1, 2))
    assert [r[0] for r in down2] == list("GYRGRB")  # A: R G R B G Y -> G Y R G R B
    assert [r[1:] for r in down2] == [r[1:] for r in cg.render(grid)]  # the other columns stay
    left1 = cg.render(cg.shift(grid, cg.FILE_INDEX["1"], -1, 1))
    assert left1[0] == "BGYRBR"
    assert left1[1:] == cg.render(grid)[1:]


grids = st.builds(
    lambda seed, combo: cg.deal(str(seed), sorted(combo)), st.integers(0, 10**9), st.sets(st.sampled_from(ALL_SEVEN))
)


@settings(max_examples=60, deadline=None)
@given(grids, st.integers(0, 11), st.integers(1, 5))
def test_a_shift_and_its_opposite_cancel(grid: cg.Grid, f: int, amount: int) -> None:  # R-X2
    moved = cg.shift(grid, f, 1, amount)
    assert cg.shift(moved, f, -1, amount) == grid
    assert cg.shift(moved, f, 1, 6 - amount) == grid  # a file is a ring of six
    assert cg.counts(moved) == cg.counts(grid)
    others = cg.BOARD & ~cg.FILE[f]
    assert all(m & others == n & others for m, n in zip(moved, grid, strict=True))


# -- group values against a plain search -----------------------------------------------------


def reference_values(rows: list[str]) -> tuple[int, ...]:
    """Each colour's largest-group value from the rules' words, by breadth-first search:
    chameleons are every colour, a group next to a bomb counts 0, a crystal on a
    line with two pylons counts 2 (R-H5, R-X3, R-X5)."""
    up = [r.upper() for r in rows]
    pylon_rows = {r for r in range(6) if up[r].count("+") >= 2}
    pylon_cols = {c for c in range(6) if sum(up[r][c] == "+" for r in range(6)) >= 2}
    out = []
    for colour in "RBGY":
        member = {(r, c) for r in range(6) for c in range(6) if up[r][c] in (colour, "@")}
        seen: set[tuple[int, int]] = set()
        best = 0
        for start in sorted(member):
            if start in seen:
                continue
            seen.add(start)
            queue, group = deque([start]), []
            while queue:
                r, c = queue.popleft()
                group.append((r, c))
                for rr, cc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if (rr, cc) in member and (rr, cc) not in seen:
                        seen.add((rr, cc))
                        queue.append((rr, cc))
            bombed = any(
                0 <= rr < 6 and 0 <= cc < 6 and up[rr][cc] == "*"
                for r, c in group
                for rr, cc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1))
            )
            if not bombed:
                best = max(best, sum(2 if r in pylon_rows or c in pylon_cols else 1 for r, c in group))
        out.append(best)
    return tuple(out)


@settings(max_examples=150, deadline=None)
@given(grids, st.lists(st.tuples(st.integers(0, 11), st.sampled_from([-1, 1]), st.integers(1, 5)), max_size=6))
def test_group_values_match_a_plain_search(grid: cg.Grid, shifts: list[tuple[int, int, int]]) -> None:  # R-X3, R-X5
    for f, sign, amount in shifts:  # rocks aside, any shifts: lines up pylons, moves bombs next to groups
        grid = cg.shift(grid, f, sign, amount)
    assert cg.colour_values(grid) == reference_values(cg.render(grid))


def test_group_values_on_a_drawn_grid() -> None:  # R-H5: orthogonal only, no wrap-around
    rows = [
        "RRBBBR",  # red A1 B1 + F1 do not join across the edge; F1 F2 is 2
        "GRBGYR",  # red B2 joins B1: A1 B1 B2 = 3
        "YGRYGB",  # red C3 touches B2 only by a corner: alone
        "BYGRBY",
        "RBYGRG",
        "RGYBRY",  # red A5 A6 and E5 E6 (2 each); A6 and F1 are not neighbours
    ]
    assert cg.colour_values(cg.parse_rows(rows))[cg.RED] == 3
    assert cg.colour_values(cg.parse_rows(rows)) == reference_values(rows)
