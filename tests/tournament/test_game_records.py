"""``--records FILE`` (readable game records, written as games finish) and
openings read back from records and from results files (issue 23):
records -> openings -> the same positions."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from engine.registry import GAMES
from umpire.cli import main
from umpire.config import load_openings, openings_kind, read_records
from umpire.results import read_results


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def position(game: str, options: dict[str, Any], moves: list[str]) -> dict[str, Any]:
    replay = GAMES[game].replay(options, moves)
    assert replay.valid
    dumped: dict[str, Any] = GAMES[game].dump(replay.state)
    return dumped


def test_records_read_and_round_trip_to_the_same_positions(tmp_path: Path) -> None:
    book = tmp_path / "book.txt"
    book.write_text("D4; C3 C4\n")
    first, records = tmp_path / "first.jsonl", tmp_path / "games.txt"
    code, _, err = cli(
        "tournament", "--game", "catchup", "--option", "size=3", "--bots", "random", "greedy", "--games", "4",
        "--openings", str(book), "--engine-only", "--quiet", "--out", str(first), "--records", str(records), "--seed", "3",
    )  # fmt: skip
    assert code == 0, err
    played = read_results(first)
    text = records.read_text()
    games = text.split("\n\n[Game ")
    assert len(games) == 4  # one record a game, written as each ended
    head, body = text.split("\n\n", 2)[:2]
    assert head.startswith('[Game "catchup"]\n[Match "local-')
    assert '[Options {"size":3}]' in head and '[Seat0 "random"]' in head and '[Seat1 "greedy"]' in head
    assert '[Result "0-1"]' in head or '[Result "1-0"]' in head
    lines = body.splitlines()
    assert lines[0] == "1. D4 {book}" and lines[1] == "2. C3 C4 {book}"  # the book moves marked
    assert lines[2].startswith("3. ") and lines[2].endswith(" s}") and "{seat 0, " in lines[2]  # each move's time
    assert openings_kind(records) == "records" and openings_kind(first) == "results" and openings_kind(book) == "book"
    assert read_records(records) == [line["moves"] for line in played]

    # records -> openings (5 plies) -> a tournament that starts every game there: the same positions
    second = tmp_path / "second.jsonl"
    code, _, err = cli(
        "tournament", "--game", "catchup", "--option", "size=3", "--bots", "greedy", "random", "--games", "8",
        "--openings", str(records), "--opening-plies", "5", "--engine-only", "--quiet", "--out", str(second),
    )  # fmt: skip
    assert code == 0, err
    openings = [line["moves"][:5] for line in played]
    for line in read_results(second):
        opening = openings[line["round"]]
        assert line["opening"]["moves"] == opening
        assert position("catchup", line["options"], line["moves"][:5]) == position("catchup", {"size": 3}, opening)
    # and from the results file itself, the same openings
    assert load_openings(first, 5) == openings


def test_openings_in_order_or_shuffled_by_the_seed(tmp_path: Path) -> None:
    book = tmp_path / "book.txt"
    book.write_text("".join(f'["A{n}"]\n' for n in range(1, 4)) + "\n".join(f'["B{n}"]' for n in range(1, 4)) + "\n")
    ordered = load_openings(book)
    assert ordered == [["A1"], ["A2"], ["A3"], ["B1"], ["B2"], ["B3"]]
    shuffled = load_openings(book, order="random", seed=7)
    assert sorted(shuffled) == ordered and shuffled != ordered
    assert load_openings(book, order="random", seed=7) == shuffled  # a resume deals them alike
    assert load_openings(book, order="random", seed=8) != shuffled


def test_a_records_moves_stop_at_an_umpires_adjudication(tmp_path: Path) -> None:
    """A server match's record may end `adjudicate 1` (issue 22): no opening move, like `abort`."""
    records = tmp_path / "records.txt"
    records.write_text('[Game "catchup"]\n[Result "0-1"]\n\n1. D4 {seat 0}\n2. C3 C4 {seat 1}\n3. adjudicate 1 {the umpire}\n')
    assert read_records(records) == [["D4", "C3 C4"]]


def test_openings_of_another_game_are_refused(tmp_path: Path) -> None:
    """Issue 37 item 10: ``--game catchup --openings bugbook.txt``, whose records say ``[Game
    "bug"]``, was accepted (Bug's moves read as Catchup's).  Records and results name their game."""
    records, results = tmp_path / "bugbook.txt", tmp_path / "bug.jsonl"
    code, _, err = cli(
        "tournament", "--game", "bug", "--option", "size=3", "--bots", "random", "greedy", "--games", "2",
        "--engine-only", "--quiet", "--out", str(results), "--records", str(records), "--seed", "3",
    )  # fmt: skip
    assert code == 0, err
    for source, kind in ((records, "records"), (results, "results")):
        out = tmp_path / f"catchup-{kind}.jsonl"
        code, _, err = cli(
            "tournament", "--game", "catchup", "--option", "size=3", "--bots", "random", "greedy", "--games", "2",
            "--openings", str(source), "--engine-only", "--quiet", "--out", str(out),
        )  # fmt: skip
        assert code == 2, err
        assert f"--openings {source}: its {kind} are of bug, not catchup" in err
        assert not out.exists()
    # the same files open games of their own game
    code, _, err = cli(
        "tournament", "--game", "bug", "--option", "size=3", "--bots", "greedy", "random", "--games", "2",
        "--openings", str(records), "--opening-plies", "2", "--engine-only", "--quiet", "--out", str(tmp_path / "ok.jsonl"),
    )  # fmt: skip
    assert code == 0, err
