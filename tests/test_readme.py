"""The commands of the README and of the manuals (docs/) work as printed.

The section "A game of Catchup with curl" (docs/WALKTHROUGH.md) is run for
real: its ``sh`` block (the helpers) and every ``$ command`` of its
``console`` blocks go to bash, in order, against what ``make run`` and the
Dockerfile serve (``python -m service.run.serve``, started by
tests/liveserver.py); each command's output must equal, character for
character, the lines printed under it.  So are the README's own "A short
tour", the commands of docs/MATCHES.md (managed matches, the umpire's
controls, the admin's list) and those of docs/TOURNAMENTS.md (named engines,
records, the pentanomial SPRT, workers).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import liveserver
import pytest

from umpire.server import EmbeddedServer

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
WALKTHROUGH = DOCS / "WALKTHROUGH.md"
SECTION = "## A game of Catchup with curl"
TOUR = "## A short tour"
PRINTED_BASE = "http://127.0.0.1:8000"


def section_of(page: Path, heading: str) -> str:
    """From ``heading`` to the next heading of its level (or the page's end)."""
    text = page.read_text(encoding="utf-8")
    start = text.index(f"{heading}\n")
    level = heading.split(" ")[0]
    end = text.find(f"\n{level} ", start + len(heading))
    return text[start : end if end != -1 else len(text)]


def walkthrough(page: Path = WALKTHROUGH, heading: str = SECTION) -> tuple[str, list[tuple[str, str]]]:
    """The helpers, and (command, printed output) pairs, in reading order."""
    section = section_of(page, heading)
    setup: list[str] = []
    steps: list[tuple[str, str]] = []
    for lang, block in re.findall(r"```(\w*)\n(.*?)```", section, flags=re.S):
        if lang == "sh":
            setup.append(block)
        elif lang == "console":
            command: str | None = None
            output: list[str] = []
            for line in block.splitlines():
                if line.startswith("$ "):
                    if command is not None:
                        steps.append((command, "\n".join(output)))
                    command, output = line[2:], []
                else:
                    output.append(line)
            if command is not None:
                steps.append((command, "\n".join(output)))
    return "\n".join(setup), steps


def test_the_walkthrough_is_found() -> None:
    setup, steps = walkthrough()
    assert "post()" in setup and "body()" in setup
    commands = " ".join(c for c, _ in steps)
    for what in ("post new", "post play", "post legal-moves", "post replay"):
        assert what in commands
    assert '"legal":false' in "".join(out for _, out in steps)  # an illegal move and its verdict
    assert all(out for _, out in steps), "every command shows its output"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """What ``make run`` serves (tests/liveserver.py), on a free port."""
    with liveserver.serve(tmp_path_factory.mktemp("readme")) as base:
        yield base


def test_the_readme_tour_is_found() -> None:
    setup, steps = walkthrough(README, TOUR)
    assert setup == ""  # the tour's commands stand alone: plain curl, no helpers
    assert [c.split()[-1].rsplit("/", 1)[-1] for c, _ in steps] == ["new", "replay"]
    assert '"valid":false' in steps[1][1] and '"rule":"R-C1"' in steps[1][1]
    assert all(out for _, out in steps), "every command shows its output"


@pytest.mark.parametrize(("page", "heading"), [(WALKTHROUGH, SECTION), (README, TOUR)], ids=["walkthrough", "readme-tour"])
def test_the_walkthrough_works_as_printed(server: str, tmp_path: Path, page: Path, heading: str) -> None:
    setup, steps = walkthrough(page, heading)
    marker = "@@@ next step @@@"
    script = ["set -u", setup.replace(PRINTED_BASE, server)]
    for command, _ in steps:
        script += [f"echo '{marker}'", command.replace(PRINTED_BASE, server)]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(["bash", "-c", "\n".join(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    outputs = done.stdout.split(marker + "\n")[1:]
    assert len(outputs) == len(steps)
    for (command, printed), got in zip(steps, outputs, strict=True):
        assert got.rstrip("\n") == printed, f"$ {command}\n{page.name} shows:\n{printed}\nthe server says:\n{got}"


MATCHES = DOCS / "MATCHES.md"


def match_blocks() -> str:
    """The ``sh`` blocks of the page "Managed matches" before its first section (webhooks), in order."""
    text = MATCHES.read_text(encoding="utf-8")
    assert text.startswith("# Managed matches\n")
    end = text.index("\n## ")
    return "\n".join(re.findall(r"```sh\n(.*?)```", text[:end], flags=re.S))


def test_the_managed_match_walkthrough_works(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's commands, run as printed against `python -m service.run.serve`
    (what `make run` starts) with the admin token the page names: the legal
    moves in the move's answer, the wait for a turn, the record as text and as
    data `replay` takes, the live events from the start, the umpire's controls, the admin's list."""
    script = match_blocks()
    token = re.search(r"^ADMIN=(\S+)", script, flags=re.M)
    assert token is not None
    monkeypatch.setenv("ADMIN_TOKEN", token.group(1))
    done = run_against_a_server(script, tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:3] == ["18", "2", "resign"]  # Bob's 18 legal moves came with Ann's answer; Ann's turn; the end
    text = "\n".join(lines[3:])
    for header in ('[Seat0 "Ann"]', '[Seat1 "Bob"]', '[Tags "club-night"]', '[Result "0-1"]'):
        assert header in text
    assert "1. C3 {" in text and "2. B2 B3 {" in text and "3. resign 0 {" in text
    assert lines[-11:-6] == ["resign", "event: move", "event: move", "event: resign", "event: end"]
    # the umpire's controls (issue 22): waiting for the start, started, paused, 30 s given to Bob, adjudicated
    assert lines[-6:-1] == ["false", "The umpire started the clocks.", "true", "330.0", "adjudicated"]
    assert lines[-1] == '["Ann", "Bob"]'  # the admin's listing


def run_against_a_server(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A manual's shell ``script`` run by bash (``set -eu -o pipefail``) against a server as ``make run``
    starts it, its printed address replaced by the server's, the project's tools on ``PATH``."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    with EmbeddedServer(workers=1) as served:
        return subprocess.run(
            ["bash", "-c", "set -eu -o pipefail\n" + script.replace(PRINTED_BASE, served.url)],
            cwd=cwd, env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip


UMPIRES = DOCS / "UMPIRES.md"
FIXES = "## Putting a mistake right"


def test_the_umpire_s_fixes_work_as_printed(tmp_path: Path) -> None:
    """docs/UMPIRES.md "Putting a mistake right" (issue 35): a take-back, a pause with its reason, a
    co-umpire link made, used and withdrawn, a seat's token re-issued - its ``sh`` blocks run as printed
    against what ``make run`` starts, each line's output the ``# prints`` its comment says, in order."""
    script = "\n".join(re.findall(r"```sh\n(.*?)```", section_of(UMPIRES, FIXES), flags=re.S))
    printed = re.findall(r"# prints (.*)$", script, flags=re.M)
    assert len(printed) >= 10 and any("took back" in p for p in printed) and "token_replaced" in printed
    done = run_against_a_server(script, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == printed


TOURNAMENTS = DOCS / "TOURNAMENTS.md"
PRINTED_QUEUE = "unix://$PWD/data/redis.sock"  # make run's own Redis, from the repository's root


def tournament_blocks() -> list[str]:
    """The page's ``sh`` blocks of issue 23: named engines, records, the pentanomial SPRT, workers."""
    text = TOURNAMENTS.read_text(encoding="utf-8")
    assert text.startswith("# Tournaments\n")
    return [b for b in re.findall(r"```sh\n(.*?)```", text, flags=re.S) if "--engine name=" in b or "--queue" in b]


def test_the_tournament_commands_work_as_printed(server: str, tmp_path: Path) -> None:
    """Named engines, records, openings from records, the pentanomial SPRT with its report,
    a resume from the file alone, and a tournament shared by two workers: run as printed,
    against what ``make run`` serves, with a Redis of the test's own for the queue."""
    from service.run import embedded

    blocks = tournament_blocks()
    assert len(blocks) == 2
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    venv = Path(sys.executable).parent
    queue = embedded.start(tmp_path / "queue")
    try:
        for block in blocks:
            script = block.replace(".venv/bin/", f"{venv}/").replace(PRINTED_BASE, server).replace(PRINTED_QUEUE, queue.url)
            env = {**os.environ, "PATH": f"{venv}{os.pathsep}{os.environ.get('PATH', '')}", "PYTHONPATH": str(ROOT)}
            done = subprocess.run(
                ["bash", "-c", "set -eu -o pipefail\n" + script], cwd=tmp_path, env=env, capture_output=True, text=True,
                timeout=240,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            if "--engine" in block:
                assert "example vs greedy" in done.stdout and "pentanomial [LL, LD, WL+DD, WD, WW]" in done.stdout
                assert "SPRT (normalized, pentanomial) elo0 0, elo1 50" in done.stdout and "LLR: " in done.stdout
                assert '"sprt_model": "normalized"' in done.stdout and "Ptnml(0-2): [" in done.stdout
            else:
                assert done.stdout.count("Results of random vs greedy") == 1  # one report, of the eight games
    finally:
        queue.stop()
    named = [json.loads(x) for x in (tmp_path / "named.jsonl").read_text().splitlines()][1:]
    assert {n for line in named for n in line["names"]} == {"example", "greedy"}
    assert (tmp_path / "named.txt").read_text().startswith('[Game "catchup"]')
    assert "  >  " in (tmp_path / "bots.log").read_text()
    shared = [json.loads(x) for x in (tmp_path / "shared.jsonl").read_text().splitlines()][1:]
    assert len(shared) == 8 and len({line["key"] for line in shared}) == 8
