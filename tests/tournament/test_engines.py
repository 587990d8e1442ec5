"""What a tester used to cutechess-cli and fastchess reaches for (issue 23):
bots as named engines (``--engine name= cmd= args= dir= env= stderr=``, the
name a bot gives in ``hello``), a ``--log`` of every line exchanged, the
start-up limit as an option (``--hello-timeout``: no clock runs during
``hello``), ``--resume F`` alone with the settings kept in the results file,
and ``--report`` showing the kept SPRT's LLR."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from umpire.cli import main
from umpire.config import Engine, parse_engine, short_name
from umpire.results import read_results, read_settings
from umpire.server import EmbeddedServer

# A bot that shows where it runs and what it was given: its cwd, an argument and a variable
# of its environment become its hello name; its stderr says hello.  It sleeps START
# seconds before its first hello (a model being loaded).
ECHO_BOT = """
import json, os, random, sys, time
start = float(os.environ.get("START", "0"))
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        time.sleep(start)
        start = 0
        print("hello from", os.path.basename(os.getcwd()), file=sys.stderr, flush=True)
        name = f"echo {sys.argv[1]} {os.environ.get('FLAVOUR', '-')} in {os.path.basename(os.getcwd())}"
        print(json.dumps({"type": "hello", "name": name, "protocol": 1, "want_legal": True}), flush=True)
    elif message["type"] == "move":
        print(json.dumps({"move": random.choice(message["legal_moves"])}), flush=True)
"""


ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def echo(tmp_path: Path) -> Path:
    folder = tmp_path / "botdir"
    folder.mkdir()
    (folder / "echo_bot.py").write_text(ECHO_BOT)
    return folder


def test_engine_specs() -> None:
    items = ["name=fast", "cmd=python3", 'args=bot.py --depth "3 4"', "arg=x y", "dir=bots", "env=A=1=2", "stderr=f.err"]
    e = parse_engine(items)
    assert e == Engine("cmd:python3 bot.py --depth '3 4' 'x y'", "fast", "bots", {"A": "1=2"}, "f.err")
    assert e.label == "fast"
    assert parse_engine(["bot=mcts:0.5"]).label == "mcts:0.5"
    assert short_name("cmd:python /very/long/path/to/the/bots/my_bot.py --fast") == "my_bot.py"
    assert Engine.from_json(e.to_json()) == e
    for bad, says in [
        (["name=x"], "cmd=PROGRAM"),
        (["cmd=a", "bot=random"], "cmd=PROGRAM"),
        (["bot=random", "dir=x"], "for a program"),
        (["colour=red", "bot=random"], "use name="),
        (["cmd=a", "env=NOVALUE"], "env=NAME=VALUE"),
    ]:
        with pytest.raises(ValueError, match=says):
            parse_engine(bad)


def test_named_engines_their_folder_arguments_environment_stderr_and_log(tmp_path: Path, echo: Path) -> None:
    out, log, err_file = tmp_path / "r.jsonl", tmp_path / "bots.log", tmp_path / "echo.err"
    code, stdout, stderr = cli(
        "tournament", "--game", "catchup", "--option", "size=3", "--bots", "greedy",
        "--engine", "name=Echo", f"cmd={sys.executable}", "args=echo_bot.py first", f"dir={echo}", "env=FLAVOUR=mint",
        f"stderr={err_file}",
        "--engine", f"cmd={sys.executable}", "args=echo_bot.py second", f"dir={echo}",
        "--games", "2", "--engine-only", "--out", str(out), "--log", str(log), "--seed", "2",
    )  # fmt: skip
    assert code == 0, stderr
    lines = read_results(out)
    assert len(lines) == 3 * 2
    names = {name for line in lines for name in line["names"]}
    # name= wins; without it, the name the bot gave in hello (its argument, environment and folder show)
    assert names == {"greedy", "Echo", "echo second - in botdir"}
    assert "greedy vs Echo" in stdout and "Echo vs echo second - in botdir" in stdout
    assert f"cmd:{sys.executable}" not in stdout  # short names, not command lines
    assert err_file.read_text().count("hello from botdir") == 4  # Echo's stderr, one hello a game, its own file
    logged = log.read_text().splitlines()
    sent = [x for x in logged if "  >  " in x and '"type":"hello"' in x]
    said = [x for x in logged if "  <  " in x and "echo first mint in botdir" in x]
    assert len(sent) == 8 and len(said) == 4  # two programs, four games each; Echo answered four
    assert any("  !  hello from botdir" in x for x in logged)
    assert all(x.split("  ")[1].startswith(("Echo cmd:", "echo_bot.py cmd:")) for x in logged)
    header = read_settings(out)
    assert header is not None
    assert header["settings"]["engines"][1] == {
        "spec": f"cmd:{sys.executable} echo_bot.py first", "name": "Echo", "dir": str(echo), "env": {"FLAVOUR": "mint"},
        "stderr": str(err_file),
    }  # fmt: skip


def test_resume_needs_the_file_alone_and_refuses_contradictions(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    args = ["tournament", "--game", "catchup", "--option", "size=3", "--bots", "random", "greedy", "--games", "4",
            "--engine-only", "--quiet", "--seed", "5", "--sprt", "0", "400", "0.05", "0.05",
            "--sprt-model", "logistic", "--sprt-counts", "pentanomial"]  # fmt: skip
    assert cli(*args, "--out", str(out))[0] == 0
    played = read_results(out)
    text = out.read_text().splitlines(keepends=True)
    out.write_text("".join(text[:3]))  # the settings and two games: as if interrupted
    # before: "--game and --bots are needed"
    for resume in (["--resume", str(out)], ["--resume", "--out", str(out)]):
        code, stdout, stderr = cli("tournament", *resume, "--quiet")  # --engine-only, as the run began
        assert code == 0, stderr
        again = read_results(out)
        assert [x["key"] for x in again] == [x["key"] for x in played]
        assert "random vs greedy" in stdout and "SPRT (logistic, pentanomial)" in stdout
        out.write_text("".join(text[:3]))
    for flag, says in [
        (["--games", "6"], "--games 6 (the tournament plays 4)"),
        (["--game", "bug"], "--game bug"),
        (["--bots", "greedy", "random"], "--bots/--engine"),
        (["--seed", "6"], "--seed 6"),
        (["--option", "size=4"], "--option size=4"),
        (["--sprt", "0", "10", "0.05", "0.05"], "--sprt"),
    ]:
        code, _, err = cli("tournament", "--resume", str(out), "--engine-only", "--quiet", *flag)
        assert code == 2 and says in err and "leave these out" in err, err
    # the same values again are no contradiction
    code, _, err = cli("tournament", "--resume", str(out), "--engine-only", "--quiet", "--games", "4", "--seed", "5")
    assert code == 0, err
    code, _, err = cli("tournament", "--resume", str(tmp_path / "none.jsonl"), "--engine-only")
    assert code == 2 and "keeps no settings" in err
    # --report shows the kept SPRT's LLR with no --sprt
    code, report, _ = cli("tournament", "--report", str(out))
    assert code == 0 and "SPRT (logistic, pentanomial) elo0 0, elo1 400" in report and "LLR: " in report


def test_a_resume_from_another_folder_runs_the_same_programs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine's relative ``dir=`` and ``stderr=`` were kept as given, so ``--resume FILE`` from
    another folder could not start the program and scored the rest as ``crash`` losses.  They are
    kept absolute (as --records and --log are), and a plain ``cmd:`` runs in the folder the run
    was started in."""
    home, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    (home / "bots").mkdir(parents=True)
    elsewhere.mkdir()
    (home / "bots" / "random_bot.py").write_text((ROOT / "examples" / "random_bot.py").read_text())
    monkeypatch.chdir(home)
    code, _, err = cli(
        "tournament", "--game", "catchup", "--option", "size=3", "--games", "4", "--engine-only", "--quiet",
        "--engine", "name=mine", f"cmd={sys.executable}", "args=random_bot.py", "dir=bots", "stderr=mine.err",
        "--engine", "name=plain", f"bot=cmd:{sys.executable} bots/random_bot.py", "--out", "r.jsonl",
    )  # fmt: skip
    assert code == 0, err
    header = read_settings(home / "r.jsonl")
    assert header is not None
    assert header["settings"]["engines"][0]["dir"] == str(home / "bots")
    assert header["settings"]["engines"][0]["stderr"] == str(home / "mine.err")
    text = (home / "r.jsonl").read_text().splitlines(keepends=True)
    (home / "r.jsonl").write_text("".join(text[:2]))  # the settings and one game: as if interrupted
    monkeypatch.chdir(elsewhere)
    code, _, err = cli("tournament", "--resume", str(home / "r.jsonl"), "--quiet")
    assert code == 0, err
    assert [line["reason"] for line in read_results(home / "r.jsonl")] == ["end"] * 4
    assert not list(elsewhere.iterdir())


def test_the_old_sprt_model_spelling_still_counts_pairs(tmp_path: Path) -> None:
    """``--sprt-model`` named the counts before it named fastchess's Elo models: the old spelling
    still means what it meant (pairs, bounds in logistic Elo) and says the new one."""
    out = tmp_path / "old.jsonl"
    code, stdout, stderr = cli(
        "tournament", "--game", "catchup", "--option", "size=3", "--bots", "random", "greedy", "--games", "2",
        "--engine-only", "--quiet", "--seed", "5", "--sprt", "0", "400", "0.05", "0.05", "--sprt-model", "pentanomial",
        "--out", str(out),
    )  # fmt: skip
    assert code == 0, stderr
    assert "--sprt-model pentanomial is now --sprt-model logistic --sprt-counts pentanomial" in stderr
    assert "SPRT (logistic, pentanomial)" in stdout
    code, _, stderr = cli("tournament", "--report", str(out), "--sprt", "0", "5", "0.05", "0.05", "--sprt-model", "bayesian")
    assert code == 2 and "--sprt-model is normalized or logistic" in stderr


def test_report_every(tmp_path: Path) -> None:
    code, stdout, stderr = cli(
        "tournament", "--game", "catchup", "--option", "size=3", "--bots", "random", "greedy", "--games", "6",
        "--engine-only", "--out", str(tmp_path / "r.jsonl"), "--report-every", "2", "--seed", "1",
    )  # fmt: skip
    assert code == 0
    assert stderr.count("-- after ") == 2  # after 2 and 4 games; the last report is the final one, on stdout
    assert "-- after 2 of 6 games --" in stderr and "random vs greedy      2" in stderr
    assert "random vs greedy      6" in stdout


@pytest.fixture(scope="module")
def fast_server() -> Iterator[EmbeddedServer]:
    with EmbeddedServer(workers=1, threads=8) as s:
        yield s


def test_a_slow_start_is_an_option_and_costs_no_clock(tmp_path: Path, echo: Path, fast_server: EmbeddedServer) -> None:
    """A program that takes 1.5 s to answer its first hello: with --hello-timeout 1 it is
    refused before the first game (it cannot start in time: no game is scored, nothing is
    written); with 4 it plays, and its 1 s clock did not run while it started (the match is
    created after the hellos)."""
    common = ["tournament", "--game", "catchup", "--option", "size=3", "--bots", "random",
              "--engine", "name=slow", f"cmd={sys.executable}", "args=echo_bot.py x", f"dir={echo}", "env=START=1.5",
              "--games", "1", "--server", fast_server.url, "--clock", "turn=1,bank=0,step=1", "--quiet"]  # fmt: skip
    code, _, err = cli(*common, "--out", str(tmp_path / "short.jsonl"), "--hello-timeout", "1")
    assert code == 2 and "bot 'slow' (cmd:" in err and "cannot start: no answer to hello in 1.0 s" in err
    assert not (tmp_path / "short.jsonl").exists()
    code, _, err = cli(*common, "--out", str(tmp_path / "long.jsonl"), "--hello-timeout", "4")
    assert code == 0, err
    [line] = read_results(tmp_path / "long.jsonl")
    assert line["reason"] == "end", line["detail"]  # not a flag: no clock ran during the hello
    assert json.dumps(line["names"]) == '["random", "slow"]'


def usage_of_tournament() -> str:
    """``umpire tournament --help`` on a terminal wide enough that argparse breaks no line (nor a hyphenated name)."""
    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(SystemExit):
        main(["tournament", "--help"])
    return out.getvalue()


def test_the_flags_name_every_game_and_preset_of_the_engine_and_an_unknown_game_is_refused_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--game`` and ``--clock`` list what the engine's registry holds (Product was missing from a list written
    by hand), and a game that is not there is refused before anything runs, by its name, not by the bots."""
    from engine.registry import GAMES, PRESETS

    monkeypatch.setenv("COLUMNS", "1000")
    flat = " ".join(usage_of_tournament().split())
    assert all(name in flat for name in GAMES) and "product" in flat
    assert f"a preset ({', '.join(PRESETS)})" in flat
    out = tmp_path / "r.jsonl"
    code, _, err = cli("tournament", "--game", "chess", "--bots", "random", "greedy", "--engine-only", "--out", str(out))
    assert code == 2 and "no game 'chess'" in err and ", ".join(GAMES) in err, err
    assert not out.exists()
