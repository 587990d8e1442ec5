"""External bots against the real server: the example bot plays whole games, and
broken bots (an illegal move, a crash, a hang, garbage, a late answer) each lose
with the right reason and detail while the harness carries on promptly.  Every
record replays with POST /v1/games/{game}/replay to the same winner."""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import botkit
import pytest
from test_end_to_end import cli

from umpire.client import MatchClient
from umpire.config import Settings
from umpire.local import LocalMatches
from umpire.report import format_report, summarize, summary_json
from umpire.results import read_results
from umpire.tournament import run

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = f"cmd:{sys.executable} {ROOT / 'examples' / 'random_bot.py'}"
FAST_CLOCK = {"turn_s": 1, "bank_s": 0, "step_s": 1}


def tournament(
    api: Any, tmp_path: Path, game: str, options: dict[str, Any], bots: list[str], games: int = 1, **kw: Any
) -> list[dict[str, Any]]:
    clock = kw.pop("clock", None)
    settings = Settings(game, options, bots, games, clock=clock, seed=3)
    outcome = run(settings, api, tmp_path / f"{game}-{time.monotonic_ns()}.jsonl", progress=False, **kw)
    assert not outcome.failures, outcome.failures
    return outcome.lines


def replays(api: MatchClient, line: dict[str, Any]) -> None:
    """The record replays on the stateless API to the same end."""
    answer = api.replay(line["game"], line["options"], line["moves"])
    assert answer["valid"], answer["first_illegal"]
    assert answer["state"]["status"] == "finished"
    assert answer["state"]["winner"] == line["winner"]


@pytest.mark.parametrize(("game", "options"), [("catchup", {"size": 3}), ("bug", {"size": 3}), ("crystal", {})])
def test_example_bot_plays_full_games(api: MatchClient, tmp_path: Path, game: str, options: dict[str, Any]) -> None:
    lines = tournament(api, tmp_path, game, options, ["random", EXAMPLE], games=2)
    assert len(lines) == 2
    for line in lines:
        assert line["reason"] == "end", line["detail"]
        assert line["bot_moves"][line["seats"].index(1)] >= 1
        replays(api, line)


def test_example_bot_without_a_server(tmp_path: Path) -> None:
    lines = tournament(LocalMatches(), tmp_path, "catchup", {"size": 3}, [EXAMPLE, "greedy"], games=2)
    assert [line["reason"] for line in lines] == ["end", "end"]


def test_illegal_move_loses(api: MatchClient, tmp_path: Path, bot_script: Callable[[str, str], str]) -> None:
    bad = bot_script("illegal", botkit.ILLEGAL)
    started = time.monotonic()
    [line] = tournament(api, tmp_path, "catchup", {"size": 3}, [bad, "random"])
    assert time.monotonic() - started < 10
    assert line["reason"] == "illegal"
    assert line["winner"] == 1 and line["winner_bot"] == "random"
    illegal = line["illegal"]
    assert illegal["seat"] == 0 and illegal["code"] == "occupied" and illegal["step"] == 0
    assert "is already occupied" in illegal["message"]
    assert f"played {illegal['move']!r} at ply {illegal['ply']}, which the service refused: occupied:" in line["detail"]
    assert line["moves"][-1] == "forfeit 0"  # the service's forfeit policy ended the game (its record says so)
    replays(api, line)


def test_crash_loses_with_its_stderr_and_is_restarted(
    api: MatchClient, tmp_path: Path, bot_script: Callable[[str, str], str]
) -> None:
    bad = bot_script("crash", botkit.CRASH)
    started = time.monotonic()
    lines = tournament(api, tmp_path, "bug", {"size": 3}, [bad, "greedy"], games=2)
    assert time.monotonic() - started < 15
    assert [line["reason"] for line in lines] == ["crash", "crash"]  # a fresh program for the second game
    for line in lines:
        assert "exited (code 3)" in line["detail"]
        assert "Traceback: something broke inside the bot" in line["detail"]
        assert line["winner_bot"] == "greedy"
        assert line["moves"][-1] == f"resign {line['seats'].index(0)}"
        replays(api, line)


def test_hang_times_out_promptly(api: MatchClient, tmp_path: Path, bot_script: Callable[[str, str], str]) -> None:
    bad = bot_script("hang", botkit.HANG)
    started = time.monotonic()
    [line] = tournament(api, tmp_path, "catchup", {"size": 3}, ["random", bad], clock=FAST_CLOCK, grace_s=0.5)
    took = time.monotonic() - started
    assert took < 8, took
    assert line["reason"] == "timeout"
    assert "no answer to the move at ply" in line["detail"] and "in 1." in line["detail"]  # about 1 s left + 0.5 s grace
    assert line["winner"] == 0
    assert line["end"] == "flag" and line["moves"][-1] == "timeout"  # the server's clock fell first
    replays(api, line)


def test_engine_only_has_a_time_limit_a_move(tmp_path: Path, bot_script: Callable[[str, str], str]) -> None:
    """Issue 37 item 8: with ``--engine-only`` (no server, so no clock) a bot that hangs waited out a
    fixed minute a move, whatever the run wanted.  ``--move-limit`` is each move's time: the bot is
    told it as its remaining time and loses by timeout past it and the grace."""
    from umpire.cli import main

    bad = bot_script("hang", botkit.HANG)
    out = tmp_path / "limit.jsonl"
    started = time.monotonic()
    code = main(["tournament", "--game", "catchup", "--option", "size=3", "--bots", "random", bad, "--games", "1",
                 "--engine-only", "--move-limit", "0.5", "--grace", "0.3", "--out", str(out), "--quiet"])  # fmt: skip
    took = time.monotonic() - started
    assert code == 0 and took < 10, took
    [line] = read_results(out)
    assert line["reason"] == "timeout" and line["winner"] == 0
    assert "no answer to the move at ply" in line["detail"] and "in 0.8 s" in line["detail"]  # 0.5 s + 0.3 s grace
    log = tmp_path / "told.log"
    main(["tournament", "--game", "catchup", "--option", "size=3", "--bots", "random", EXAMPLE, "--games", "1",
          "--engine-only", "--move-limit", "2", "--out", str(tmp_path / "told.jsonl"), "--log", str(log), "--quiet"])  # fmt: skip
    told = [json.loads(x.split("  >  ")[1]) for x in log.read_text().splitlines() if '"type":"move"' in x]
    assert told and all(m["remaining_ms"] == 2000 and m["turn_ms"] == 2000 for m in told)


def test_garbage_answer_is_a_crash(api: MatchClient, tmp_path: Path, bot_script: Callable[[str, str], str]) -> None:
    bad = bot_script("garbage", botkit.GARBAGE)
    [line] = tournament(api, tmp_path, "catchup", {"size": 3}, [bad, "random"])
    assert line["reason"] == "crash"
    assert "not JSON: 'let me think...'" in line["detail"]
    replays(api, line)


def test_late_answer_is_a_flag(api: MatchClient, tmp_path: Path, bot_script: Callable[[str, str], str]) -> None:
    slow = bot_script("slow", botkit.SLOW)
    [line] = tournament(api, tmp_path, "catchup", {"size": 3}, ["random", slow], clock=FAST_CLOCK, grace_s=2.0)
    assert line["reason"] == "flag"
    # not "with 1.00 s left on its clock", which read as if time remained: that was the time when asked
    assert re.search(r"ran out of time at ply \d+: its answer came after 1\.\d\d s, with \d\.\d\d s on its clock when "
                     r"it was asked$", line["detail"]), line["detail"]  # fmt: skip
    assert line["winner"] == 0 and line["moves"][-1] == "timeout"
    replays(api, line)


def test_crystal_flag_passes_the_turn_and_play_goes_on(
    api: MatchClient, tmp_path: Path, bot_script: Callable[[str, str], str]
) -> None:
    # R-X6: the late seat's turn is not lost at once; the proxy window lapses, the turn passes, the game goes on
    slow = bot_script("slow", botkit.SLOW)
    options = {"colors": [["red", "green"], ["blue", "yellow"]], "first": 0}
    [line] = tournament(api, tmp_path, "crystal", options, [slow, "greedy"], clock={**FAST_CLOCK, "turn_s": 1.5}, grace_s=1.0)
    assert line["reason"] == "end"
    assert "timeout" in line["moves"]  # the passed turn
    replays(api, line)
    # R-X6 scored the game as usual, but the report shows the flag and the turn it lost: a bot
    # that flags every turn and never moves is seen (item 9); per bot, in text and in --json
    slow_seat = line["seats"].index(0)
    assert line["flags"][slow_seat] == 1 and line["flags"][1 - slow_seat] == 0
    assert line["proxy_turns"][slow_seat] == 1 and line["proxy_turns"][1 - slow_seat] == 0
    summary = summarize([line])
    assert "  incidents: broken 1 flags, 1 proxy turns; greedy none\n" in format_report(summary)
    [item] = summary_json(summary, [line])
    assert item["incidents"] == {
        "broken": {"flags": 1, "proxy_turns": 1, "timeouts": 0, "crashes": 0},
        "greedy": {"flags": 0, "proxy_turns": 0, "timeouts": 0, "crashes": 0},
    }


def test_resigning_bot(api: MatchClient, tmp_path: Path, bot_script: Callable[[str, str], str]) -> None:
    quitter = bot_script("resign", botkit.RESIGN)
    [line] = tournament(api, tmp_path, "catchup", {"size": 3}, [quitter, "random"])
    assert line["reason"] == "resign" and "resigned at ply" in line["detail"]
    assert line["moves"][-1] == "resign 0"
    replays(api, line)


# -- an HTTP bot ----------------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    broken = False

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if message["type"] == "hello":
            answer: dict[str, Any] = {"type": "hello", "name": "http-first-cell", "protocol": 1, "want_legal": True}
        elif message["type"] == "move":
            if self.broken and message["ply"] > 2:
                self.send_response(500)
                self.end_headers()
                self.wfile.write(b"the bot fell over")
                return
            answer = {"move": message["legal_moves"][0]}
        else:
            answer = {}
        body = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass


@pytest.fixture
def http_bot() -> Iterator[Callable[[bool], str]]:
    servers: list[ThreadingHTTPServer] = []

    def start(broken: bool) -> str:
        handler = type("Handler", (_Handler,), {"broken": broken})
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        servers.append(httpd)
        return f"http://127.0.0.1:{httpd.server_address[1]}/bot"

    yield start
    for httpd in servers:
        httpd.shutdown()
        httpd.server_close()


def test_http_bot(api: MatchClient, tmp_path: Path, http_bot: Callable[[bool], str]) -> None:
    good, bad = http_bot(False), http_bot(True)
    [line] = tournament(api, tmp_path, "catchup", {"size": 3}, [good, "random"])
    assert line["reason"] == "end"
    replays(api, line)
    [line] = tournament(api, tmp_path, "catchup", {"size": 3}, ["random", bad])
    assert line["reason"] == "crash" and "HTTP 500: the bot fell over" in line["detail"]
    replays(api, line)


def test_a_bot_that_cannot_start_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    """A typo in a command, a program that is not there, an HTTP bot nobody answers, an engine's
    folder that is not there: each was played and scored game after game as ``crash`` losses
    (SPRT and all, exit 0).  Every external bot is now started once and must answer ``hello``
    before the first game: else exit 2 naming the bot, and no results file."""
    out = tmp_path / "x.jsonl"
    base = ["tournament", "--game", "catchup", "--option", "size=3", "--games", "200", "--engine-only", "--quiet",
            "--sprt", "0", "5", "0.05", "0.05", "--out", str(out), "--hello-timeout", "5"]  # fmt: skip
    typo = f"cmd:{sys.executable} {tmp_path / 'typo.py'}"
    for bots, said in [
        (["--bots", "greedy", typo], f"bot 'typo.py' ({typo}) cannot start: exited (code 2) instead of answering hello; "
         "its stderr ended: "),
        (["--bots", "greedy", "cmd:/nonexistent/bot"], "bot 'bot' (cmd:/nonexistent/bot) cannot start: could not be started"),
        (["--bots", "greedy", "http://127.0.0.1:1/bot"], "bot http://127.0.0.1:1/bot cannot start: could not be reached"),
        (["--bots", "greedy", "--engine", "name=mine", f"cmd={sys.executable}", f"arg={EXAMPLE.split()[-1]}",
          "dir=/nonexistent"], "bot 'mine' (cmd:"),
    ]:  # fmt: skip
        code, _, err = cli(*base, *bots)
        assert code == 2 and said in err, (bots, err)
        assert "Traceback" not in err
        assert not out.exists(), bots


# answers hello the first time it is ever run (the check before the first game), then never again
ONCE = """
import json, pathlib, sys
marker = pathlib.Path(sys.argv[1])
if marker.exists():
    print("cannot load my model", file=sys.stderr)
    sys.exit(4)
marker.write_text("started once")
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "want_legal": True}), flush=True)
    elif message["type"] == "move":
        print(json.dumps({"move": message["legal_moves"][0]}), flush=True)
"""


def test_a_bot_that_cannot_start_a_game_stops_the_tournament(tmp_path: Path) -> None:
    """During a run, a bot that cannot start (here: it exits before its hello) is not a game lost:
    as fastchess stops its tournament when an engine cannot be started (match.cpp: "Failed to
    start engines, stopping tournament."), no game is scored, the run stops, exit 1, and
    ``--resume`` plays the games once the bot starts again."""
    script = tmp_path / "once.py"
    script.write_text(ONCE)
    marker = tmp_path / "marker"
    out = tmp_path / "once.jsonl"
    args = ["tournament", "--game", "catchup", "--option", "size=3", "--games", "4", "--engine-only", "--quiet",
            "--bots", "random", f"cmd:{sys.executable} {script} {marker}", "--out", str(out)]  # fmt: skip
    code, stdout, err = cli(*args)
    assert code == 1, err
    assert "could not start the game: exited (code 4) instead of answering hello" in err and "cannot load my model" in err
    assert "not played: 0v1#0: " in err and "the tournament stopped, no game scored: --resume plays it" in err
    assert read_results(out) == [] and stdout == ""
    script.write_text(ONCE.replace("if marker.exists():", "if False:"))  # the bot is fixed
    code, _, err = cli("tournament", "--resume", str(out), "--quiet")
    assert code == 0, err
    assert [line["reason"] for line in read_results(out)] == ["end"] * 4


def test_the_manuals_say_how_the_record_of_a_game_lost_off_the_board_ends(
    tmp_path: Path, bot_script: Callable[[str, str], str]
) -> None:
    """docs/BOTS.md said an illegal move made the harness resign the seat (the record replaying
    ``resign 0`` / ``resign 1``) and docs/TOURNAMENTS.md "resigned by the harness", but the harness
    creates its matches with the ``forfeit`` policy: the record ends ``forfeit N``.  The manuals
    name the entries the records end with, read here from real records."""
    bots_md = (ROOT / "docs" / "BOTS.md").read_text(encoding="utf-8")
    tournaments_md = (ROOT / "docs" / "TOURNAMENTS.md").read_text(encoding="utf-8")
    [illegal] = tournament(LocalMatches(), tmp_path, "catchup", {"size": 3}, [bot_script("illegal", botkit.ILLEGAL), "random"])
    [crash] = tournament(LocalMatches(), tmp_path, "bug", {"size": 3}, ["greedy", bot_script("crash", botkit.CRASH)])
    assert (illegal["reason"], illegal["end"], illegal["moves"][-1]) == ("illegal", "illegal", "forfeit 0")
    assert (crash["reason"], crash["moves"][-1]) == ("crash", "resign 1")
    assert "the record replays `forfeit 0` or `forfeit 1`" in bots_md and "end `illegal`" in bots_md
    assert "the record replays `resign 0` or\n`resign 1`" in bots_md
    assert "the record ends `forfeit 0` or `forfeit 1`" in tournaments_md
    assert "`resign 0` or `resign 1`, `forfeit 0` or `forfeit 1` where" in tournaments_md
    for page in (bots_md, tournaments_md):
        assert "resigned by the harness" not in page and "resigns the seat in the match, so" not in page
