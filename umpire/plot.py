"""The summary picture (``--plot FILE``): on the left each pairing's score
(the first bot's, in percent) with its 95% interval, on the right each
bot's openskill rating, mu with mu +/- 2 sigma.  matplotlib's Agg backend,
so no display is needed; PNG by default (the file's extension decides).
"""

from __future__ import annotations

import math
from pathlib import Path

from umpire.report import Summary, options_text


def plot(summary: Summary, path: str | Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pairs = summary.pairings
    rows = max(len(pairs), len(summary.ratings), 1)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 1.6 + 0.45 * rows), constrained_layout=True)

    names = [f"{summary.bots[p.first]} vs {summary.bots[p.second]}" for p in pairs]
    scores, lows, highs = [], [], []
    for p in pairs:
        e = p.elo
        s = 50.0 if math.isnan(e.score) else 100 * e.score
        lo = s if math.isnan(e.score_low) else 100 * max(0.0, e.score_low)
        hi = s if math.isnan(e.score_high) else 100 * min(1.0, e.score_high)
        scores.append(s)
        lows.append(max(0.0, s - lo))
        highs.append(max(0.0, hi - s))
    ys = list(range(len(pairs)))[::-1]
    left.errorbar(scores, ys, xerr=[lows, highs], fmt="o", color="tab:blue", ecolor="tab:blue", capsize=4)
    left.axvline(50, color="grey", linestyle="--", linewidth=1)
    left.set_yticks(ys, names)
    left.set_xlim(-3, 103)
    left.set_ylim(-0.7, len(pairs) - 0.3)
    left.set_xlabel("score of the first bot, % (95% interval)")
    left.set_title("Pairings")
    for y, s, p in zip(ys, scores, pairs, strict=True):
        # at either end of the axis the label leans inwards, so that the frame does not cut it
        ha = "left" if s < 8 else "right" if s > 92 else "center"
        left.annotate(f"{p.wins}-{p.losses}-{p.draws}", (s, y), textcoords="offset points", xytext=(0, 7), ha=ha, fontsize=8)

    ratings = summary.ratings
    ry = list(range(len(ratings)))[::-1]
    mus = [r.mu for r in ratings]
    twos = [2 * r.sigma for r in ratings]
    right.errorbar(mus, ry, xerr=twos, fmt="s", color="tab:green", ecolor="tab:green", capsize=4)
    right.set_yticks(ry, [r.bot for r in ratings])
    right.set_ylim(-0.7, len(ratings) - 0.3)
    right.set_xlabel("openskill rating, mu +/- 2 sigma")
    right.set_title("Ratings")

    fig.suptitle(f"{summary.game} ({options_text(summary.options)}): {summary.games} games")
    fig.savefig(path, dpi=110)
    plt.close(fig)
