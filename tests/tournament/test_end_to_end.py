"""umpire tournament end to end: the console script's code (umpire.cli.main)
against a real server and a real Redis (the embedded server, started by the
harness's helper), a small tournament of each game between random and greedy;
every results line replays to the same winner; the report and the plot are made."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from umpire.cli import main
from umpire.client import MatchClient
from umpire.results import read_results
from umpire.server import EmbeddedServer

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def check_replays(api: MatchClient, lines: list[dict[str, Any]]) -> None:
    for line in lines:
        answer = api.replay(line["game"], line["options"], line["moves"])
        assert answer["valid"], (line["key"], answer["first_illegal"])
        assert answer["state"]["status"] == "finished"
        assert answer["state"]["winner"] == line["winner"], line["key"]
        assert answer["state"]["end"] == line["end"]


def png_size(path: Path) -> tuple[int, int]:
    """Decode the PNG (matplotlib's reader) and give its size."""
    import matplotlib.image

    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = matplotlib.image.imread(str(path))
    return pixels.shape[1], pixels.shape[0]


@pytest.mark.parametrize(
    ("game", "options", "games", "extra"),
    [
        ("catchup", ["size=4"], 4, ["--concurrency", "2"]),
        ("catchup", ["size=3", "variant=bolanos"], 2, []),
        ("bug", ["size=3"], 4, ["--concurrency", "2", "--clock", "turn=20,bank=10,step=1"]),
        ("crystal", [], 2, ["--clock", "crystal"]),
        ("plur", ["size=3", "pie=true"], 2, ["--clock", "plur"]),
        ("too", ["size=3"], 2, ["--clock", "too"]),
        ("product", ["size=3", "variant=abstractplay"], 2, ["--clock", "product"]),
    ],
)
def test_random_against_greedy(
    server: EmbeddedServer, api: MatchClient, tmp_path: Path, game: str, options: list[str], games: int, extra: list[str]
) -> None:
    out, picture = tmp_path / "results.jsonl", tmp_path / "summary.png"
    opts = [a for o in options for a in ("--option", o)]
    code, stdout, stderr = cli(
        "tournament", "--game", game, *opts, "--bots", "random", "greedy", "--games", str(games),
        "--out", str(out), "--server", server.url, "--plot", str(picture), "--seed", "1", *extra,
    )  # fmt: skip
    assert code == 0, stderr
    lines = read_results(out)
    assert len(lines) == games
    assert {line["reason"] for line in lines} == {"end"}
    assert all(line["game"] == game for line in lines)
    assert [line["seats"] for line in sorted(lines, key=lambda x: x["index"])][:2] == [[0, 1], [1, 0]]  # colours alternate
    check_replays(api, lines)
    greedy_wins = sum(line["winner_bot"] == "greedy" for line in lines)
    assert f"random vs greedy  {games:>5}" in stdout
    assert f"{games - greedy_wins}-{greedy_wins}-0" in stdout
    assert "Rating list" in stdout and "ended by: end" in stdout
    assert f"{games}/{games} games" in stderr  # the progress line
    width, height = png_size(picture)
    assert width > 600 and height > 150


def test_round_robin_of_three_with_openings_and_report(server: EmbeddedServer, api: MatchClient, tmp_path: Path) -> None:
    book = tmp_path / "book.txt"
    book.write_text('# two Catchup openings\nD4; C3 C4\n["A1", "E3 E2"]\n')
    out = tmp_path / "rr.jsonl"
    code, stdout, stderr = cli(
        "tournament", "--game", "catchup", "--option", "size=3", "--bots", "random", "greedy", "mcts:0.02",
        "--games", "4", "--openings", str(book), "--concurrency", "3", "--out", str(out), "--server", server.url,
    )  # fmt: skip
    assert code == 0, stderr
    lines = read_results(out)
    assert len(lines) == 3 * 4
    for line in lines:
        opening = [["D4", "C3 C4"], ["A1", "E3 E2"]][line["round"]]
        assert line["opening"] == {"index": line["round"], "moves": opening}
        # played through the API before the bots took over, and written back as play writes them ("E3 E2" is E2 E3)
        assert line["moves"][:2] == [["D4", "C3 C4"], ["A1", "E2 E3"]][line["round"]]
    check_replays(api, lines)
    for pairing in ("random vs greedy", "random vs mcts:0.02", "greedy vs mcts:0.02"):
        assert pairing in stdout
    # the report again, from the file alone
    picture = tmp_path / "again.png"
    code, again, _ = cli("tournament", "--report", str(out), "--plot", str(picture))
    assert code == 0
    assert again == stdout + f"plot: {picture}\n"
    assert png_size(picture)[0] > 600


def test_gauntlet_and_resume_over_http(server: EmbeddedServer, api: MatchClient, tmp_path: Path) -> None:
    out = tmp_path / "g.jsonl"
    args = ["tournament", "--game", "catchup", "--option", "size=3", "--bots", "greedy", "random", "random",
            "--format", "gauntlet", "--games", "2", "--out", str(out), "--server", server.url, "--seed", "9"]  # fmt: skip
    assert cli(*args)[0] == 0
    lines = read_results(out)
    assert [line["pairing"] for line in lines] == [[0, 1], [0, 1], [0, 2], [0, 2]]
    # lose the last two games, as if interrupted, and resume: two new matches, no more
    kept = out.read_text().splitlines(keepends=True)[:3]  # the settings and two games
    out.write_text("".join(kept))
    code, _, stderr = cli(*args, "--resume")
    assert code == 0, stderr
    again = read_results(out)
    assert [line["key"] for line in again] == [line["key"] for line in lines]
    assert again[:2] == lines[:2]
    assert {line["match_id"] for line in again[2:]}.isdisjoint(line["match_id"] for line in lines)
    check_replays(api, again)


def test_console_script_with_its_own_server(tmp_path: Path) -> None:
    """The installed `umpire` command, with no --server: it starts and stops an embedded one."""
    out = tmp_path / "own.jsonl"
    umpire = Path(sys.executable).parent / "umpire"
    command = [str(umpire)] if umpire.exists() else [sys.executable, "-m", "umpire"]
    args = ["tournament", "--game", "catchup", "--option", "size=3", "--bots", "random", "greedy", "--games", "2"]
    done = subprocess.run([*command, *args, "--out", str(out)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "starting an embedded server" in done.stderr
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines[0]["type"] == "settings" and lines[0]["settings"]["bots"] == ["random", "greedy"]
    lines = lines[1:]
    assert len(lines) == 2 and lines[0]["server"] == "embedded"
    assert "random vs greedy" in done.stdout


def test_bad_command_lines(tmp_path: Path) -> None:
    assert cli("tournament", "--game", "catchup", "--bots", "random")[0] == 2
    code, _, err = cli("tournament", "--game", "catchup", "--bots", "random", "grandmaster", "--engine-only")
    assert code == 2 and "unknown bot 'grandmaster'" in err
    code, _, err = cli("tournament", "--game", "catchup", "--bots", "random", "greedy", "--option", "size", "--engine-only")
    assert code == 2 and "KEY=VALUE" in err
    code, _, err = cli(
        "tournament", "--game", "catchup", "--bots", "random", "greedy", "--option", "size=99", "--engine-only",
        "--out", str(tmp_path / "x.jsonl"), "--quiet",
    )  # fmt: skip
    assert code == 2 and "options.size" in err


def test_every_setting_is_checked_before_the_first_game(server: EmbeddedServer, tmp_path: Path) -> None:
    """Issue 37 item 9: ``--clock 10+0.1`` failed only once the first game started (``422
    bad_options``, exit 1) and left a settings-only ``--out`` that refused a rerun.  Every setting
    is now checked before anything is started or written, as the server would judge it (R-T1,
    R-T2; engine/clock.py), and the usual BASE+INCREMENT form is a clock of the service's."""
    out = tmp_path / "c.jsonl"
    base = ["tournament", "--game", "catchup", "--option", "size=3", "--bots", "random", "greedy", "--games", "2",
            "--out", str(out), "--server", server.url, "--quiet"]  # fmt: skip
    refused = [
        (["--clock", "blitz"], "There is no clock preset 'blitz'"),
        (["--clock", "turn=0,bank=5,step=1"], "clock.turn_s must be from 0.001"),
        (["--clock", "0+0"], "--clock 0+0: the base time must be more than 0 seconds"),
        (["--clock", "0+5"], "--clock 0+5: the base time must be more than 0 seconds"),
        (["--clock", "0"], "--clock 0: the base time must be more than 0 seconds"),
        (["--clock", "40/60"], "moves/time controls (40/60) are not one of this service's clocks"),
        (["--clock", "5+0.1,on_flag=proxy"], "--clock"),
        (["--concurrency", "0"], "--concurrency must be at least 1"),
        (["--grace", "-1"], "--grace must be 0 or more seconds"),
        (["--games", "0"], "--games must be at least 1"),
    ]
    for extra, said in refused:
        code, _, err = cli(*base, *extra)
        assert code == 2 and said in err, (extra, err)
        assert not out.exists(), extra  # nothing written: nothing to block a rerun
    code, _, err = cli("tournament", "--game", "crystal", "--bots", "random", "greedy", "--out", str(out), "--clock", "catchup")
    assert code == 2 and "in crystal a flag is handled by the game's own rule: add on_flag=proxy" in err
    # 10+0.1: a Fischer clock, R-T1's bank of 10 s with 0.1 s added after each move; no turn allowance
    # (1 ms, the least the service takes), the bank charged to the millisecond
    code, _, err = cli(*base, "--clock", "10+0.1")
    assert code == 0, err
    lines = read_results(out)
    assert len(lines) == 2
    clock = lines[0]["clock"]
    assert (clock["turn_s"], clock["bank_s"], clock["step_s"], clock["increment_s"]) == (0.001, 10, 0.001, 0.1)
    # a results file that holds only its settings (a run that stopped before its first game ended)
    # does not refuse a new run: it is started afresh
    out.write_text(out.read_text().splitlines(keepends=True)[0])
    code, _, err = cli(*base, "--clock", "20+0.5")
    assert code == 0, err
    assert len(read_results(out)) == 2 and read_results(out)[0]["clock"]["bank_s"] == 20


def test_a_report_of_several_tournaments_keeps_them_apart(tmp_path: Path) -> None:
    """Bots are numbered per tournament: files of two tournaments (two games, or the
    same bots listed in another order) give a report and a picture each, never one
    table that mixes them."""
    files = []
    for n, (game, bots) in enumerate(
        [("catchup", ["random", "greedy"]), ("plur", ["greedy", "random"]), ("catchup", ["greedy", "random"])]
    ):
        out = tmp_path / f"t{n}.jsonl"
        args = ["tournament", "--game", game, "--option", "size=3", "--bots", *bots, "--games", "2", "--seed", "4"]
        assert cli(*args, "--out", str(out), "--engine-only", "--quiet")[0] == 0
        files.append(str(out))
    code, stdout, _ = cli("tournament", "--report", *files, "--plot", str(tmp_path / "all.png"))
    assert code == 0
    assert stdout.startswith("3 tournaments in these files (catchup, plur, catchup): a report for each\n")
    assert stdout.count("size=3): 2 games, 2 bots") == 3
    assert stdout.count("random vs greedy      2") == 1 and stdout.count("greedy vs random      2") == 2
    for name in ("all-catchup-1.png", "all-plur.png", "all-catchup-2.png"):
        assert f"plot: {tmp_path / name}\n" in stdout
        assert png_size(tmp_path / name)[0] > 600
    # one file alone: one report, the picture where --plot says
    code, one, _ = cli("tournament", "--report", files[1], "--plot", str(tmp_path / "one.png"))
    assert code == 0 and one.startswith("plur (size=3): 2 games, 2 bots\n") and one.endswith(f"plot: {tmp_path / 'one.png'}\n")


def test_the_report_as_fastchess_prints_it_and_as_json(tmp_path: Path) -> None:
    """Issue 37: the lines fastchess users' parsers read (``Ptnml(0-2):``, ``LLR: x (y%) (lower,
    upper) [elo0, elo1]``; app/src/matchmaking/output/output_fastchess.hpp) and, with ``--json``,
    one JSON object per pairing with every figure."""
    import re

    out = tmp_path / "sprt.jsonl"
    code, stdout, err = cli(
        "tournament", "--game", "catchup", "--option", "size=3", "--bots", "greedy", "random", "--games", "10",
        "--engine-only", "--quiet", "--seed", "2", "--sprt", "0", "10", "0.05", "0.05", "--sprt-counts", "pentanomial",
        "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    ptnml = re.search(r"^Ptnml\(0-2\): \[(\d+), (\d+), (\d+), (\d+), (\d+)\], WL/DD Ratio: \S+$", stdout, re.M)
    llr = re.search(r"^LLR: (-?\d+\.\d\d) \((-?\d+\.\d)%\) \((-?\d+\.\d\d), (-?\d+\.\d\d)\) \[0\.00, 10\.00\]$", stdout, re.M)
    assert ptnml and llr, stdout
    assert sum(int(x) for x in ptnml.groups()) == 5
    assert (llr.group(3), llr.group(4)) == ("-2.94", "2.94")
    assert re.search(r"^Games: 10, Wins: \d+, Losses: \d+, Draws: 0, Points: \d+\.\d \(\d+\.\d\d %\)$", stdout, re.M)
    assert re.search(r"^Elo: \S+ \+/- \S+, nElo: \S+ \+/- \S+$", stdout, re.M) and "LOS: " in stdout

    code, text, _ = cli("tournament", "--report", str(out), "--json")
    assert code == 0
    [item] = [json.loads(line) for line in text.splitlines()]
    for field in ("wdl", "pentanomial", "elo", "elo_interval", "los", "nelo", "llr", "llr_bounds", "sprt_model"):
        assert field in item, field
    assert item["pentanomial"] == [int(x) for x in ptnml.groups()]
    assert sum(item["wdl"].values()) == 10 and item["wdl"]["draws"] == 0
    assert f"{item['llr']:.2f}" == llr.group(1)
    assert item["llr_bounds"] == [pytest.approx(-2.944439), pytest.approx(2.944439)]
    assert item["sprt_model"] == "normalized" and item["sprt_counts"] == "pentanomial"  # fastchess's default model
    for value in (item["elo"], *item["elo_interval"], item["los"]):
        assert isinstance(value, float) or value in ("inf", "-inf")  # JSON has no infinity: a string float() reads

    # a round robin has a pairing a line, and no SPRT; --sprt with --report computes one
    rr = tmp_path / "rr.jsonl"
    assert cli("tournament", "--game", "plur", "--option", "size=3", "--bots", "random", "greedy", "mcts:0.01", "--games",
               "2", "--engine-only", "--quiet", "--out", str(rr))[0] == 0  # fmt: skip
    code, text, _ = cli("tournament", "--report", str(rr), "--json")
    items = [json.loads(line) for line in text.splitlines()]
    assert [(i["first"], i["second"]) for i in items] == [("random", "greedy"), ("random", "mcts:0.01"), ("greedy", "mcts:0.01")]
    assert all("llr" not in i and i["games"] == 2 for i in items)
    one = tmp_path / "one.jsonl"
    assert cli("tournament", "--game", "catchup", "--option", "size=3", "--bots", "random", "greedy", "--games", "2",
               "--engine-only", "--quiet", "--out", str(one))[0] == 0  # fmt: skip
    code, text, _ = cli("tournament", "--report", str(one), "--json", "--sprt", "0", "5", "0.05", "0.05", "--sprt-model",
                        "logistic")  # fmt: skip
    [item] = [json.loads(line) for line in text.splitlines()]
    assert item["sprt_model"] == "logistic" and item["llr_bounds"][1] == pytest.approx(2.944439)


def test_a_report_counts_each_game_once_and_keeps_each_runs_pairs(tmp_path: Path) -> None:
    """``--report m1.jsonl m1.jsonl`` (or a copy of the file) reported 8 games for 4 and lost its
    pentanomial line; two runs of one tournament (the same settings, so the same fingerprint, two
    run ids) merged without one, their pairs keyed by the round alone (four games to a "pair").
    A game is now its run and its key, counted once, and pairs are keyed by run and round."""
    args = ["tournament", "--game", "catchup", "--option", "size=3", "--bots", "greedy", "random", "--games", "4",
            "--seed", "9", "--engine-only", "--quiet"]  # fmt: skip
    one, two = tmp_path / "m1.jsonl", tmp_path / "m2.jsonl"
    assert cli(*args, "--out", str(one))[0] == 0
    assert cli(*args, "--out", str(two))[0] == 0
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(one.read_bytes())
    _, alone, _ = cli("tournament", "--report", str(one))
    assert "greedy vs random      4" in alone and "of 2 pairs" in alone
    for files in ([one, one], [one, copy]):
        code, stdout, err = cli("tournament", "--report", *map(str, files))
        assert code == 0 and stdout == alone, files
        assert "4 games are in these files more than once (the same run and game): each counted once" in err
    code, stdout, _ = cli("tournament", "--report", str(one), str(two))
    assert code == 0 and stdout.startswith("catchup (size=3): 8 games, 2 bots\n")  # one tournament, two runs
    assert "greedy vs random      8" in stdout and "of 4 pairs" in stdout and "Ptnml(0-2): [" in stdout
    code, text, _ = cli("tournament", "--report", str(one), str(two), "--json")
    [item] = [json.loads(line) for line in text.splitlines()]
    assert item["games"] == 8 and item["pairs"] == 4 and sum(item["pentanomial"]) == 4


def test_every_check_comes_before_a_server_starts_or_a_line_is_written(tmp_path: Path) -> None:
    """Each of these was found only after the embedded server started and the start line was printed
    (some after the results file was written; a wrong --queue as a traceback, exit 1; a worker's as a
    traceback): now each is one line naming its flag, exit 2, before anything starts or is written."""
    held = tmp_path / "held.jsonl"
    assert cli("tournament", "--game", "catchup", "--option", "size=3", "--bots", "random", "greedy", "--games", "2",
               "--engine-only", "--quiet", "--out", str(held))[0] == 0  # fmt: skip
    before = held.read_bytes()
    out = tmp_path / "new.jsonl"
    base = ["tournament", "--game", "catchup", "--option", "size=3", "--games", "2"]
    for extra, said in [
        (["--bots", "random", "greedy", "mcts:0.01", "--sprt", "0", "5", "0.05", "0.05", "--out", str(out)],
         "--sprt tests a match of exactly two bots, not 3"),
        (["--bots", "random", "greedy", "--out", str(held)], f"--out {held} already holds results: --resume to finish"),
        (["--bots", "random", "greedy", "--out", "/nonexistent-dir/x.jsonl"],
         "--out /nonexistent-dir/x.jsonl: there is no folder /nonexistent-dir"),
        (["--bots", "random", "greedy", "--out", str(out), "--records", str(tmp_path / "no" / "r.txt")],
         f"--records {tmp_path / 'no' / 'r.txt'}: there is no folder {tmp_path / 'no'}"),
        (["--bots", "random", "greedy", "--out", str(tmp_path)], f"--out {tmp_path} is a folder: name a file"),
        (["--bots", "random", "greedy", "--out", str(out), "--openings", "/nonexistent.txt"],
         "--openings /nonexistent.txt: No such file or directory"),
        (["--bots", "random", "greedy", "--out", str(out), "--queue", "unix:///nonexistent.sock"],
         "--queue unix:///nonexistent.sock: no Redis answers there"),
        # --engine-only keeps no clock: a --clock was silently ignored there (the games' clock null)
        (["--bots", "random", "greedy", "--out", str(out), "--engine-only", "--clock", "10+0.1"],
         "--clock and --engine-only: without a server there is no clock, so it would be ignored; leave out --clock "
         "(each move then has --move-limit S"),
        (["--bots", "random", "greedy", "--out", str(out), "--engine-only", "--clock", "catchup"],
         "--clock and --engine-only: without a server there is no clock"),
    ]:  # fmt: skip
        code, stdout, err = cli(*base, *extra)
        assert code == 2 and err.startswith(f"umpire tournament: {said}") and err.count("\n") == 1, (extra, err)
        assert stdout == "" and not out.exists()
    assert held.read_bytes() == before
    for url in ("unix:///nonexistent.sock", "redis://127.0.0.1:1"):
        code, _, err = cli("worker", "--queue", url, "--idle-exit", "1")
        assert code == 2 and err.startswith(f"umpire worker: --queue {url}: no Redis answers there") and err.count("\n") == 1


def test_the_json_report_writes_no_negative_zero(tmp_path: Path) -> None:
    """An even score (one win, one loss) has Elo 0, which --json wrote as ``-0.0``."""
    out = tmp_path / "even.jsonl"
    common = {"tournament": "t", "run": "r", "game": "catchup", "options": {"size": 3}, "players": ["a", "b"],
              "pairing": [0, 1], "reason": "end"}  # fmt: skip
    games = [
        {**common, "key": "0v1#0", "index": 0, "number": 0, "seats": [0, 1], "winner": 0},  # a wins with seat 0
        {**common, "key": "0v1#1", "index": 1, "number": 1, "seats": [1, 0], "winner": 0},  # b wins with seat 0
    ]
    out.write_text("".join(json.dumps(line) + "\n" for line in games))
    code, text, _ = cli("tournament", "--report", str(out), "--json")
    assert code == 0 and "-0.0" not in text, text
    [item] = [json.loads(line) for line in text.splitlines()]
    assert item["wdl"] == {"wins": 1, "draws": 0, "losses": 1} and item["elo"] == 0.0
