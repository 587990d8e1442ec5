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
        assert line["moves"][:2] == opening  # played through the API before the bots took over
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


def test_the_server_refusing_the_clock_stops_at_once(server: EmbeddedServer, tmp_path: Path) -> None:
    code, _, err = cli(
        "tournament", "--game", "catchup", "--bots", "random", "greedy", "--games", "6", "--clock", "blitz",
        "--out", str(tmp_path / "c.jsonl"), "--server", server.url,
    )  # fmt: skip
    assert code == 1
    assert "There is no clock preset 'blitz'" in err and "the server refused the match: stopping" in err
    assert err.count("could not be played") == 1


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
