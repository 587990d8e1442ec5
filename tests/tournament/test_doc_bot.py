"""A bot built from docs/BOTS.md alone plays every variant of every game without
an illegal move (issue 19).

``examples/random_bot.py`` is such a bot: an external program speaking the
JSON-lines protocol, asking for the legal moves in its hello and answering
one of the complete legal moves it is given, with no knowledge of any game.
Before the ``move`` message carried complete moves, a bot written from the
documentation saw only first steps and guessed the rest: it lost every
Catchup ``bolanos`` game by R-C3's ``largest_group_grew`` and half of the
Crystal ``rocks`` games by R-X5's ``rock_over_edge``.

Each variant: ``umpire tournament`` (the console script's code) against the
session's real server, the example bot against ``random``, both colours.
"""

from __future__ import annotations

import io
import json
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from engine.games.crystal.rules import ANOMALIES
from umpire.cli import main
from umpire.client import MatchClient
from umpire.results import read_results
from umpire.server import EmbeddedServer

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = f"cmd:{sys.executable} {ROOT / 'examples' / 'random_bot.py'}"

VARIANTS: list[tuple[str, list[str]]] = [
    ("catchup", ["size=4"]),
    ("catchup", ["size=4", "variant=mindsports"]),
    ("catchup", ["size=4", "variant=bolanos"]),
    ("catchup", ["size=5", "variant=bolanos"]),
    ("bug", ["size=3"]),
    ("bug", ["size=3", "eaters=all"]),
    ("bug", ["variant=green-meadow"]),
    ("bug", ["variant=green-meadow", "eaters=all"]),
    ("crystal", []),
    *[("crystal", [f'anomalies=["{a}"]']) for a in ANOMALIES],
    ("crystal", ["anomalies=" + json.dumps(list(ANOMALIES))]),
    ("plur", ["size=4"]),
    ("plur", ["size=4", "pie=true"]),
    ("too", ["size=4"]),
    ("product", ["size=3"]),
    ("product", ["size=3", "variant=bentley", "lone_group=size"]),
    ("product", ["size=3", "variant=abstractplay", 'blocked=["C3"]']),
]


@pytest.mark.parametrize(("game", "options"), VARIANTS, ids=[f"{g}-{i}" for i, (g, _) in enumerate(VARIANTS)])
def test_a_bot_from_the_documentation_plays_every_variant(
    server: EmbeddedServer, api: MatchClient, tmp_path: Path, game: str, options: list[str]
) -> None:
    out = tmp_path / "doc-bot.jsonl"
    opts = [a for o in options for a in ("--option", o)]
    stdout, stderr = io.StringIO(), io.StringIO()
    with redirect_stdout(stdout), redirect_stderr(stderr):
        code = main(
            ["tournament", "--game", game, *opts, "--bots", EXAMPLE, "random", "--games", "2", "--concurrency", "2",
             "--out", str(out), "--server", server.url, "--seed", "4"]
        )  # fmt: skip
    assert code == 0, stderr.getvalue()
    lines = read_results(out)
    assert len(lines) == 2
    for line in lines:
        assert line["reason"] == "end", line["detail"]  # never illegal, never a crash
        assert "illegal" not in line
        example_seat = line["seats"].index(0)
        assert line["bot_moves"][example_seat] >= 1
        answer = api.replay(line["game"], line["options"], line["moves"])
        assert answer["valid"] and answer["state"]["winner"] == line["winner"]
