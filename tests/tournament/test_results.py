"""The results file and --resume, on the engine alone (umpire/local.py): an
interrupted tournament plays only its missing games."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from test_end_to_end import cli

from umpire.config import Settings
from umpire.local import LocalMatches
from umpire.results import ResultsWriter, read_results, read_settings
from umpire.stats import Sprt
from umpire.tournament import TournamentError, run

SETTINGS = Settings("catchup", {"size": 3}, ["random", "greedy", "random"], 4, "round-robin", seed=11)


def play(settings: Settings, out: Path, resume: bool = False, **kw: object) -> tuple[LocalMatches, list[dict[str, object]]]:
    matches = LocalMatches()
    outcome = run(settings, matches, out, resume=resume, progress=False, **kw)  # type: ignore[arg-type]
    return matches, outcome.lines


def test_one_line_per_game_with_its_key(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    matches, lines = play(SETTINGS, out)
    on_disk = read_results(out)
    assert on_disk == lines
    assert len(on_disk) == 3 * 4  # three pairings of four games
    assert matches.calls >= 12 * 3  # at least create, one move and the record per game
    keys = [line["key"] for line in on_disk]
    assert len(set(keys)) == len(keys)
    for line in on_disk:
        assert line["tournament"] == SETTINGS.fingerprint()
        assert line["players"] == [SETTINGS.bots[i] for i in line["seats"]]
        assert line["reason"] == "end" and line["winner"] in (0, 1)
        assert line["winner_bot"] == line["players"][line["winner"]]
        assert {"game", "options", "clock", "moves", "detail", "match_id", "started", "finished", "duration_s"} <= set(line)
    text = out.read_text()
    assert text.endswith("\n") and text.count("\n") == 1 + 12  # the settings, then a line a game
    header = read_settings(out)
    assert header is not None and header["tournament"] == SETTINGS.fingerprint()
    assert Settings.from_json(header["settings"]) == SETTINGS


def test_resume_plays_only_the_missing_games(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    _, full = play(SETTINGS, out)
    lines = out.read_text().splitlines(keepends=True)[1:]  # after the settings
    # interrupted after five games, the sixth line cut short mid-write
    out.write_text("".join(out.read_text().splitlines(keepends=True)[:6]) + lines[5][:40])
    _matches, resumed = play(SETTINGS, out, resume=True)
    on_disk = read_results(out)
    assert len(on_disk) == 12
    assert sorted(line["key"] for line in on_disk) == sorted(line["key"] for line in full)
    new_ids = {line["match_id"] for line in on_disk[5:]}
    assert len(new_ids) == 7  # seven games played again, each its own match
    assert all(match_id.startswith("local-") and int(match_id.split("-")[1]) <= 7 for match_id in new_ids)
    assert [json.loads(line)["key"] for line in lines[:5]] == [line["key"] for line in on_disk[:5]]
    assert len(resumed) == 12
    # resuming a finished tournament plays nothing
    again, lines_again = play(SETTINGS, out, resume=True)
    assert again.calls == 0 and len(lines_again) == 12


def test_resume_refuses_another_tournament(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    play(SETTINGS, out)
    with pytest.raises(TournamentError, match="already holds results"):
        play(SETTINGS, out)
    other = Settings("catchup", {"size": 4}, SETTINGS.bots, 4, seed=11)
    with pytest.raises(TournamentError, match="another tournament"):
        play(other, out, resume=True)


def test_writer_flushes_each_line(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    writer = ResultsWriter(out, append=False)
    writer.write({"key": "a"})
    assert read_results(out) == [{"key": "a"}]  # readable before the writer is closed
    writer.close()


def test_sprt_stops_a_two_bot_match(tmp_path: Path) -> None:
    settings = Settings("catchup", {"size": 3}, ["greedy", "random"], 400, seed=5)
    _matches, lines = play(settings, tmp_path / "sprt.jsonl", sprt=Sprt(0, 20, 0.05, 0.05), concurrency=2)
    assert 5 <= len(lines) < 100  # decided long before 400 games
    wins = sum(1 for line in lines if line["winner_bot"] == "greedy")
    assert wins >= len(lines) - 2
    with pytest.raises(TournamentError, match="exactly two bots"):
        play(SETTINGS, tmp_path / "x.jsonl", sprt=Sprt(0, 10, 0.05, 0.05))


def test_progress_line(tmp_path: Path) -> None:
    stream = io.StringIO()
    settings = Settings("catchup", {"size": 3}, ["greedy", "random"], 2, seed=5)
    run(settings, LocalMatches(), tmp_path / "p.jsonl", progress=True, stream=stream)
    text = stream.getvalue()
    assert "1/2 games" in text and "2/2 games  greedy W-L-D 2-0-0" in text


def test_the_sprt_report_is_the_one_it_decided_on(tmp_path: Path) -> None:
    """With two games at a time, the SPRT's stop message came with a game still in play, which was
    added afterwards: the report (24 games, LLR past its bound) was not the one the decision was
    taken on (23 games).  As fastchess does, a game that ends after the decision is neither written
    nor counted (its match is aborted); the message is printed once."""
    out = tmp_path / "sprt.jsonl"
    code, stdout, err = cli(
        "tournament", "--game", "catchup", "--option", "size=3", "--bots", "greedy", "random", "--games", "200",
        "--sprt", "0", "50", "0.05", "0.05", "--concurrency", "2", "--engine-only", "--seed", "1", "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    assert err.count("SPRT:") == 1, err
    decided = re.search(r"SPRT: H1 accepted after (\d+) games; no more games are started", err)
    assert decided, err
    games = int(decided.group(1))
    assert len(read_results(out)) == games
    assert f"catchup (size=3): {games} games, 2 bots" in stdout and f"\nGames: {games}, " in stdout
    llr = re.search(r"^LLR: (\S+) \((\S+)%\)", stdout, re.M)
    assert llr and 100.0 <= float(llr.group(2)) < 140.0, stdout  # just past its bound, where it was decided
    code, again, _ = cli("tournament", "--report", str(out))
    assert code == 0 and f"\nGames: {games}, " in again
