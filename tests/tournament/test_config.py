"""Command-line values, opening books and the schedule (umpire/config.py)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from umpire.config import Settings, pairings, parse_clock, parse_options, parse_value, read_openings, schedule


def test_option_values_are_json_when_they_parse() -> None:
    assert parse_options(["size=4", "variant=bolanos", 'anomalies=["rocks", "spikes"]', "pie=true", "seed=x y"]) == {
        "size": 4,
        "variant": "bolanos",
        "anomalies": ["rocks", "spikes"],
        "pie": True,
        "seed": "x y",
    }
    assert parse_value("3.5") == 3.5
    assert parse_value("null") is None
    assert parse_value('"4"') == "4"  # quoted: a string after all
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_options(["size"])
    with pytest.raises(ValueError):
        parse_options(["=4"])


def test_clock_presets_and_fields() -> None:
    assert parse_clock(None) is None
    assert parse_clock("bug-green-meadow") == "bug-green-meadow"
    assert parse_clock("plur") == "plur"  # the server decides which presets exist
    assert parse_clock("turn=5,bank=30,step=1") == {"turn_s": 5, "bank_s": 30, "step_s": 1}
    assert parse_clock("turn=0.5, bank=0, increment=2, on_flag=proxy") == {
        "turn_s": 0.5,
        "bank_s": 0,
        "increment_s": 2,  # passed through for the server that takes it
        "on_flag": "proxy",
    }
    with pytest.raises(ValueError, match="turn="):
        parse_clock("turns=5")
    with pytest.raises(ValueError, match="number"):
        parse_clock("turn=soon")


def test_opening_book_both_forms(tmp_path: Path) -> None:
    book = tmp_path / "book.txt"
    book.write_text(
        "# Catchup openings, one a line\n"
        "\n"
        '["C3", "B2 B3"]\n'
        "C3; b2, b3 ;C2 C4 D3\n"
        '["first", "red", "blue green", "second", "C up 2, 2 right 3, A down 1"]\n'
    )
    assert read_openings(book) == [
        ["C3", "B2 B3"],
        ["C3", "b2, b3", "C2 C4 D3"],
        ["first", "red", "blue green", "second", "C up 2, 2 right 3, A down 1"],
    ]
    bad = tmp_path / "bad.txt"
    bad.write_text('["C3", 4]\n')
    with pytest.raises(ValueError, match=r"bad\.txt:1"):
        read_openings(bad)
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n")
    with pytest.raises(ValueError, match="no openings"):
        read_openings(empty)


def test_colours_alternate_within_each_game_pair() -> None:
    games = schedule(2, "round-robin", 7)
    assert [g.seats for g in games] == [(0, 1), (1, 0)] * 3 + [(0, 1)]
    assert [g.round for g in games] == [0, 0, 1, 1, 2, 2, 3]
    seats = Counter(g.seats[0] for g in schedule(2, "round-robin", 10))
    assert seats == {0: 5, 1: 5}


def test_round_robin_and_gauntlet_pairings() -> None:
    assert pairings(4, "round-robin") == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    assert pairings(4, "gauntlet") == [(0, 1), (0, 2), (0, 3)]
    rr = schedule(3, "round-robin", 4)
    assert len(rr) == 3 * 4
    assert Counter(g.pairing for g in rr) == {(0, 1): 4, (0, 2): 4, (1, 2): 4}
    # round by round: every pairing's first game pair comes before any second one
    assert [g.round for g in rr] == [0] * 6 + [1] * 6
    gauntlet = schedule(3, "gauntlet", 2)
    assert [(g.pairing, g.seats) for g in gauntlet] == [((0, 1), (0, 1)), ((0, 1), (1, 0)), ((0, 2), (0, 2)), ((0, 2), (2, 0))]
    with pytest.raises(ValueError):
        pairings(3, "swiss")


def test_both_games_of_a_pair_share_the_opening() -> None:
    games = schedule(3, "round-robin", 6, openings=2)
    for g in games:
        assert g.opening == g.round % 2
    by_pair: dict[tuple[tuple[int, int], int], set[int | None]] = {}
    for g in games:
        by_pair.setdefault((g.pairing, g.round), set()).add(g.opening)
    assert all(len(v) == 1 for v in by_pair.values())
    assert schedule(2, "round-robin", 2)[0].opening is None


def test_keys_are_unique_and_stable() -> None:
    games = schedule(4, "round-robin", 5)
    keys = [g.key for g in games]
    assert len(set(keys)) == len(keys)
    assert keys == [g.key for g in schedule(4, "round-robin", 5)]
    assert games[0].key == "0v1#0"
    assert [g.index for g in games] == list(range(len(games)))


def test_fingerprint_and_seeded_options() -> None:
    a = Settings("crystal", {}, ["random", "greedy"], 4, seed=7)
    assert a.fingerprint() == Settings("crystal", {}, ["random", "greedy"], 4, seed=7).fingerprint()
    assert a.fingerprint() != Settings("crystal", {}, ["random", "greedy"], 6, seed=7).fingerprint()
    assert a.fingerprint() != Settings("crystal", {}, ["greedy", "random"], 4, seed=7).fingerprint()
    games = a.schedule()
    # one seed per game pair: both games of a pair are dealt the same grid
    assert a.game_options(games[0], True) == a.game_options(games[1], True) == {"seed": "t7-r0"}
    assert a.game_options(games[2], True) == {"seed": "t7-r1"}
    assert Settings("crystal", {"seed": "s"}, ["random", "greedy"], 2).game_options(games[0], True) == {"seed": "s"}
    assert Settings("catchup", {"size": 3}, ["random", "greedy"], 2).game_options(games[0], False) == {"size": 3}
