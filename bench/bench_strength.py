"""The strength table of the built-in bots, from recorded gauntlets:
``python -m bench strength [FILE ...]`` (by default every
``bench/results/strong-*.jsonl``).

Each file is a results file of ``umpire tournament --format gauntlet`` (its
first bot against each other one; BENCHMARKS.md "The strong bot" has the
commands).  Printed, as a Markdown table, per game and pairing from the
first bot's side: games, W-L-D, score, the score's 95% interval (Wilson's,
draws counted as half a win), and the Elo difference of the score with the
interval carried over (``-400 log10(1/s - 1)``, infinite at 0% or 100%),
and whether the goal of issue 37 holds: at 1 s a move at least 75% against
``greedy`` and ``mcts``, at 0.1 s no weaker than ``greedy`` (a score of 50%
or more).  The same games give the same figures as ``umpire tournament
--report``.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TITLES = {"catchup": "Catchup", "bug": "Bug", "crystal": "Crystal", "plur": "Plur", "too": "Too", "product": "Product"}
Z = 1.959964  # the 95% two-sided normal quantile


def wilson(score: float, games: int) -> tuple[float, float]:
    """The 95% Wilson interval of a proportion ``score`` over ``games``."""
    centre = (score + Z * Z / (2 * games)) / (1 + Z * Z / games)
    half = Z * math.sqrt(score * (1 - score) / games + Z * Z / (4 * games * games)) / (1 + Z * Z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def elo(score: float) -> float:
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


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
        score = (r["w"] + r["d"] / 2) / games
        lo, hi = wilson(score, games)
        out.append(
            f"| {TITLES.get(r['game'], r['game'])} | `{r['bot']}` | `{r['other']}` | {games} | {r['w']}-{r['l']}-{r['d']} | "
            f"{100 * score:.1f}% | [{100 * lo:.1f}%, {100 * hi:.1f}%] | {signed(elo(score))} [{signed(elo(lo))}, "
            f"{signed(elo(hi))}] | {goal(r['bot'], r['other'], score)} |"
        )
    return out


def main(argv: list[str] | None = None) -> None:
    paths = [Path(a) for a in argv or []] or sorted((ROOT / "bench" / "results").glob("strong-*.jsonl"))
    print("\n".join(table(paths)))


if __name__ == "__main__":
    main(sys.argv[1:])
