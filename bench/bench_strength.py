"""The strength table of the built-in bots, from recorded gauntlets:
``python -m bench strength [FILE ...]`` (by default every
``bench/results/strong-*.jsonl``).

Each file is a results file of ``umpire tournament --format gauntlet`` (its
first bot against each other one; BENCHMARKS.md "The strong bot" has the
commands).  Printed, as a Markdown table, per game and pairing from the
first bot's side: games, W-L-D, score, the score's 95% interval and the Elo
difference with its 95% interval, both exactly as ``umpire tournament
--report`` computes them (umpire/stats.py ``estimate``, fastchess's normal
interval: the Elo bound is infinite where the score's passes 100%), and
whether the goal of issue 37 holds: at 1 s a move at least 75% against
``greedy`` and ``mcts``, at 0.1 s no weaker than ``greedy`` (a score of 50%
or more).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

from umpire.stats import estimate

ROOT = Path(__file__).resolve().parent.parent
TITLES = {"catchup": "Catchup", "bug": "Bug", "crystal": "Crystal", "plur": "Plur", "too": "Too", "product": "Product"}


def signed(x: float) -> str:
    return "+inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:+.0f}"


def pairings(path: Path) -> list[dict[str, Any]]:
    """Per pairing of the file's first bot: the game, the bots, and W, L, D from the first bot's side."""
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    bots = lines[0]["settings"]["bots"]
    first = bots[0]
    out: dict[str, dict[str, Any]] = {}
    for line in lines[1:]:
        if "players" not in line:
            continue
        other = next(p for p in line["players"] if p != first)
        row = out.setdefault(other, {"game": line["game"], "bot": first, "other": other, "w": 0, "l": 0, "d": 0})
        winner = line.get("winner_bot") if line.get("winner") is not None else None
        key = "d" if winner is None else "w" if winner == first else "l"
        row[key] += 1
    return [out[b] for b in bots[1:] if b in out]


def goal(bot: str, other: str, score: float) -> str:
    seconds = float(bot.partition(":")[2] or 1)
    if seconds >= 1:
        return "yes" if score >= 0.75 else "**no**"
    if other == "greedy":
        return "yes" if score >= 0.5 else "**no**"
    return ""


def table(paths: list[Path]) -> list[str]:
    rows = [r for p in paths for r in pairings(p)]
    order = list(TITLES)
    rows.sort(key=lambda r: (order.index(r["game"]) if r["game"] in order else 99, -float(r["bot"].partition(":")[2] or 1)))
    out = [
        "| game | bot | against | games | W-L-D | score | 95% interval | Elo [95% interval] | goal met |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        games = r["w"] + r["l"] + r["d"]
        e = estimate(r["w"], r["l"], r["d"])  # the report's own figures (umpire tournament --report)
        lo, hi = max(0.0, e.score_low), min(1.0, e.score_high)
        out.append(
            f"| {TITLES.get(r['game'], r['game'])} | `{r['bot']}` | `{r['other']}` | {games} | {r['w']}-{r['l']}-{r['d']} | "
            f"{100 * e.score:.1f}% | [{100 * lo:.1f}%, {100 * hi:.1f}%] | {signed(e.diff)} [{signed(e.low)}, "
            f"{signed(e.high)}] | {goal(r['bot'], r['other'], e.score)} |"
        )
    return out


def main(argv: list[str] | None = None) -> None:
    paths = [Path(a) for a in argv or []] or sorted((ROOT / "bench" / "results").glob("strong-*.jsonl"))
    print("\n".join(table(paths)))


if __name__ == "__main__":
    main(sys.argv[1:])
