"""The tournament's report, from its results lines: a table per pairing (wins,
losses, draws from the pairing's first bot's side, score, Elo difference and
its 95% interval, LOS, and why games ended), the rating list of all bots
(openskill), the SPRT's state when one was asked for, and each pairing's
figures as fastchess prints them (``Results of``, ``Elo:``, ``LOS:``,
``Games:``, ``Ptnml(0-2):``, ``LLR:``), for the scripts that read those lines.

``umpire tournament --report results.jsonl`` prints it for any results file;
the tournament prints it when it ends; ``--json`` prints :func:`summary_json`
instead, one JSON object per pairing with every figure.  :func:`summarize` is
what the table, the JSON and the plot (umpire/plot.py) are drawn from.
"""

from __future__ import annotations

import collections
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from umpire.stats import EloEstimate, PentaEstimate, Rating, Sprt, estimate, estimate_penta, pentanomial, ratings

Json = dict[str, Any]


@dataclass
class PairingSummary:
    first: int  # bot indices, as paired
    second: int
    wins: int = 0  # of the first bot
    losses: int = 0
    draws: int = 0
    reasons: collections.Counter[str] = field(default_factory=collections.Counter)
    # per bot (first, second): flags, proxy turns (R-X6), games lost by timeout and by crash
    incidents: dict[int, collections.Counter[str]] = field(default_factory=dict)
    # (run, round) -> the first bot's results in its pair's games (pair_key)
    halves: dict[tuple[str | None, int], list[float]] = field(default_factory=dict)

    @property
    def elo(self) -> EloEstimate:
        return estimate(self.wins, self.losses, self.draws)

    @property
    def penta(self) -> tuple[int, int, int, int, int]:
        """``[LL, LD, WL+DD, WD, WW]`` of the complete pairs (both games played)."""
        return pentanomial(sum(r) for r in self.halves.values() if len(r) == 2)

    @property
    def wl_dd(self) -> tuple[int, int]:
        """The complete pairs scoring 1 point of 2: a win and a loss (WL), two draws (DD)."""
        even = [r for r in self.halves.values() if len(r) == 2 and sum(r) == 1]
        wl = sum(1 for r in even if 0.5 not in r)
        return wl, len(even) - wl

    @property
    def penta_elo(self) -> PentaEstimate:
        return estimate_penta(self.penta)

    @property
    def wld(self) -> tuple[int, int, int]:
        return self.wins, self.losses, self.draws


@dataclass
class Summary:
    game: str
    options: Json
    bots: list[str]  # labels, by index
    games: int
    pairings: list[PairingSummary]
    ratings: list[Rating]
    sprt: Sprt | None = None


def _labels(lines: Sequence[Json]) -> list[str]:
    """Each bot's short name: its engine name (``name=``, else the name it gave in
    ``hello``), else its spec."""
    specs: dict[int, str] = {}
    for line in lines:
        for i, spec in zip(line["seats"], line.get("names") or line["players"], strict=True):
            specs.setdefault(int(i), spec)
    count = collections.Counter(specs.values())
    size = max(specs) + 1 if specs else 0
    return [specs.get(i, f"bot {i}") + (f" [{i}]" if count[specs.get(i, "")] > 1 else "") for i in range(size)]


def pair_key(line: Json) -> tuple[str | None, int]:
    """The pair of games a line belongs to (both games of a pair share an opening, colours
    swapped): its run and its round, so two runs of one tournament (the same settings, two runs
    ids) merged in one report keep their pairs apart instead of making pairs of four games."""
    run = line.get("run")
    return (None if run is None else str(run)), int(line.get("number", 0)) // 2


def unique_games(lines: Sequence[Json]) -> tuple[list[Json], int]:
    """The lines without exact duplicates (a file given twice, or a copy of it, to ``--report``):
    one game is its tournament, its run and its key (a line of a run with no id: and its match
    id), counted once; and how many were left out."""
    seen: set[tuple[Any, ...]] = set()
    out: list[Json] = []
    for line in lines:
        run = line.get("run")
        identity = (line.get("tournament"), run, line.get("key"), None if run is not None else line.get("match_id"))
        if identity in seen:
            continue
        seen.add(identity)
        out.append(line)
    return out, len(lines) - len(out)


def by_tournament(lines: Sequence[Json]) -> list[list[Json]]:
    """The lines of each tournament (by the fingerprint every line carries, else
    by game), in the order they first appear: bots are numbered per tournament,
    so games of two tournaments cannot share one table."""
    groups: dict[str, list[Json]] = {}
    for line in lines:
        groups.setdefault(str(line.get("tournament") or line.get("game")), []).append(line)
    return list(groups.values())


def plot_paths(path: str | Path, games: Sequence[str]) -> list[Path]:
    """Where the pictures of ``games`` (one a tournament) go: ``path`` for one;
    for several, the game's name (and a number when it repeats) before the
    extension: ``summary-catchup.png``, ``summary-bug.png``."""
    base = Path(path)
    if len(games) == 1:
        return [base]
    seen: collections.Counter[str] = collections.Counter(games)
    count: collections.Counter[str] = collections.Counter()
    out = []
    for game in games:
        count[game] += 1
        name = game if seen[game] == 1 else f"{game}-{count[game]}"
        out.append(base.with_name(f"{base.stem}-{name}{base.suffix}"))
    return out


def summarize(lines: Sequence[Json], sprt: Sprt | None = None) -> Summary:
    """Counts per pairing and the rating list, games taken in schedule order."""
    ordered = sorted(lines, key=lambda line: (line.get("index", 0), line.get("key", "")))
    bots = _labels(ordered)
    by_pair: dict[tuple[int, int], PairingSummary] = {}
    rated: list[tuple[int, int, int | None]] = []
    for line in ordered:
        a, b = (int(x) for x in line["pairing"])
        seats = [int(x) for x in line["seats"]]
        p = by_pair.setdefault((a, b), PairingSummary(a, b))
        winner = line["winner"]
        if winner is None:
            p.draws += 1
        elif seats[winner] == a:
            p.wins += 1
        else:
            p.losses += 1
        p.reasons[line["reason"]] += 1
        for seat, bot in enumerate(seats):
            count = p.incidents.setdefault(bot, collections.Counter({k: 0 for k in INCIDENTS}))
            count["flags"] += int((line.get("flags") or [0, 0])[seat])
            count["proxy_turns"] += int((line.get("proxy_turns") or [0, 0])[seat])
            if winner is not None and winner != seat and line["reason"] in ("timeout", "crash"):
                count["timeouts" if line["reason"] == "timeout" else "crashes"] += 1
        p.halves.setdefault(pair_key(line), []).append(0.5 if winner is None else 1.0 if seats[winner] == a else 0.0)
        rated.append((seats[0], seats[1], winner))
    first = ordered[0] if ordered else {}
    return Summary(
        game=str(first.get("game", "?")),
        options=dict(first.get("options", {})),
        bots=bots,
        games=len(ordered),
        pairings=[by_pair[k] for k in sorted(by_pair)],
        ratings=ratings(bots, rated) if bots else [],
        sprt=sprt,
    )


INCIDENTS = ("flags", "proxy_turns", "timeouts", "crashes")


def incidents_text(summary: Summary, p: PairingSummary) -> str | None:
    """``incidents: slow 12 flags, 12 proxy turns; greedy none`` (None when neither bot had any), as
    fastchess lists each player's timeouts and crashes: a bot that flags every turn is seen even
    where the game's own rule (R-X6) scores its games as usual."""
    if not any(sum(c.values()) for c in p.incidents.values()):
        return None
    parts = []
    for bot in (p.first, p.second):
        count = p.incidents.get(bot, collections.Counter())
        said = [f"{count[k]} {k.replace('_', ' ')}" for k in INCIDENTS if count[k]]
        parts.append(f"{summary.bots[bot]} {', '.join(said) if said else 'none'}")
    return "incidents: " + "; ".join(parts)


def _elo(x: float) -> str:
    if math.isnan(x):
        return "-"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.1f}" if round(x, 1) != 0 else "+0.0"  # never "-0.0"


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.1f}%"


def options_text(options: Json) -> str:
    """The options a tournament set (a dealt Crystal seed left out), or ``default options``."""
    return ", ".join(f"{k}={v}" for k, v in options.items() if k != "seed") or "default options"


def format_report(summary: Summary) -> str:
    """The tables as text (fixed-width columns)."""
    out: list[str] = []
    options = options_text(summary.options)
    out.append(f"{summary.game} ({options}): {summary.games} games, {len(summary.bots)} bots")
    out.append("")
    width = max([len(f"{summary.bots[p.first]} vs {summary.bots[p.second]}") for p in summary.pairings] + [7])
    out.append(
        f"{'pairing':<{width}}  {'games':>5}  {'W-L-D':>11}  {'score':>6}  {'Elo diff':>16}  {'95% interval':>20}  {'LOS':>6}"
    )
    for p in summary.pairings:
        e = p.elo
        name = f"{summary.bots[p.first]} vs {summary.bots[p.second]}"
        wld = f"{p.wins}-{p.losses}-{p.draws}"
        error = "" if not math.isfinite(e.error) or not math.isfinite(e.diff) else f" +/- {e.error:.1f}"
        interval = f"[{_elo(e.low)}, {_elo(e.high)}]"
        elo = _elo(e.diff) + error
        out.append(f"{name:<{width}}  {e.games:>5}  {wld:>11}  {_pct(e.score):>6}  {elo:>16}  {interval:>20}  {_pct(e.los):>6}")
        pe = p.penta_elo
        if pe.pairs:
            nelo = "-" if math.isnan(pe.nelo) else f"{_elo(pe.nelo)} +/- {pe.nelo_error:.1f}"
            finite = math.isfinite(pe.error) and math.isfinite(pe.diff)
            pair_elo = _elo(pe.diff) + (f" +/- {pe.error:.1f}" if finite else "")
            out.append(
                f"{'':<{width}}  pentanomial [LL, LD, WL+DD, WD, WW] {list(pe.penta)} of {pe.pairs} pairs: "
                f"Elo {pair_elo} [{_elo(pe.low)}, {_elo(pe.high)}], nElo {nelo}, LOS {_pct(pe.los)}"
            )
        draws = _pct(p.draws / e.games) if e.games else "-"
        reasons = ", ".join(f"{r} {n}" for r, n in sorted(p.reasons.items(), key=lambda kv: (-kv[1], kv[0])))
        out.append(f"{'':<{width}}  drawn games {draws}; ended by: {reasons}")
        incidents = incidents_text(summary, p)
        if incidents is not None:
            out.append(f"{'':<{width}}  {incidents}")
    out.append("")
    out.append("Rating list (openskill Plackett-Luce over the games in schedule order; mu +/- 2 sigma; sorted by mu - 3 sigma)")
    bw = max([len(r.bot) for r in summary.ratings] + [3])
    out.append(f"{'#':>2}  {'bot':<{bw}}  {'games':>5}  {'W-L-D':>11}  {'score':>6}  {'rating':>14}  {'mu-3sigma':>9}")
    for n, r in enumerate(summary.ratings, 1):
        wld = f"{r.wins}-{r.losses}-{r.draws}"
        rating = f"{r.mu:.1f} +/- {2 * r.sigma:.1f}"
        out.append(f"{n:>2}  {r.bot:<{bw}}  {r.games:>5}  {wld:>11}  {_pct(r.score):>6}  {rating:>14}  {r.ordinal:>9.1f}")
    sprt = summary.sprt if len(summary.pairings) == 1 else None
    if sprt is not None:
        p = summary.pairings[0]
        out.append("")
        out.append(f"{summary.bots[p.first]} vs {summary.bots[p.second]}: {sprt.describe_state(p.wld, p.penta)}")
    for p in summary.pairings:
        out.append("-" * 50)
        out.extend(fastchess_lines(summary, p, sprt))
    out.append("-" * 50)
    return "\n".join(out) + "\n"


def _ratio(a: float, b: float) -> float:
    """``a / b`` as C++ divides doubles: inf (or -inf) for a nonzero ``a`` over 0, nan for 0 / 0."""
    if b:
        return a / b
    return math.nan if not a else math.copysign(math.inf, a)


def fastchess_lines(summary: Summary, p: PairingSummary, sprt: Sprt | None) -> list[str]:
    """One pairing as fastchess's head-to-head report prints it (``output_fastchess.hpp``
    ``printEloH2H`` and ``printSprt``; ``{:.2f}``, so ``inf`` and ``nan`` where a figure is
    infinite or undefined): Elo, nElo and LOS of the pairs, as fastchess reports by default,
    and of the games while no pair is complete; then the SPRT's line when there is one."""
    e, pe = p.elo, p.penta_elo
    penta = pe.pairs > 0
    diff, error, los = (pe.diff, pe.error, pe.los) if penta else (e.diff, e.error, e.los)
    nelo, nelo_error = (pe.nelo, pe.nelo_error) if penta else (math.nan, math.nan)
    ll, ld, even, wd, ww = pe.penta
    wl, dd = p.wl_dd
    games = e.games
    points = p.wins + 0.5 * p.draws
    draws = 100 * _ratio(even, pe.pairs) if penta else 100 * _ratio(p.draws, games)
    pairs_ratio = f", PairsRatio: {_ratio(ww + wd, ld + ll):.2f}" if penta else ""
    out = [
        f"Results of {summary.bots[p.first]} vs {summary.bots[p.second]} ({summary.game}, {options_text(summary.options)}):",
        f"Elo: {diff:.2f} +/- {error:.2f}, nElo: {nelo:.2f} +/- {nelo_error:.2f}",
        f"LOS: {100 * los:.2f} %, DrawRatio: {draws:.2f} %{pairs_ratio}",
        f"Games: {games}, Wins: {p.wins}, Losses: {p.losses}, Draws: {p.draws}, Points: {points:.1f} "
        f"({100 * _ratio(points, games):.2f} %)",
    ]
    if penta:
        out.append(f"Ptnml(0-2): [{ll}, {ld}, {even}, {wd}, {ww}], WL/DD Ratio: {_ratio(wl, dd):.2f}")
    if sprt is not None:
        out.append(sprt.fastchess_line(p.wld, p.penta))
    return out


def _number(x: float) -> float | str | None:
    """A figure for JSON, which has no infinity or nan: ``"inf"``/``"-inf"`` (what ``float()``
    reads back), null where it is undefined."""
    if math.isnan(x):
        return None
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x + 0.0  # never -0.0 (an even score's Elo): 0.0


def summary_json(summary: Summary, lines: Sequence[Json] = ()) -> list[Json]:
    """One object per pairing with every figure of the report (``--report FILE --json``);
    infinities as ``"inf"``/``"-inf"``, undefined figures as null."""
    first = lines[0] if lines else {}
    ranks = {r.bot: n for n, r in enumerate(summary.ratings, 1)}
    rated = {r.bot: r for r in summary.ratings}
    sprt = summary.sprt if len(summary.pairings) == 1 else None
    out: list[Json] = []
    for p in summary.pairings:
        e, pe = p.elo, p.penta_elo
        a, b = summary.bots[p.first], summary.bots[p.second]
        wl, dd = p.wl_dd
        item: Json = {
            "tournament": first.get("tournament"),
            "run": first.get("run"),
            "game": summary.game,
            "options": summary.options,
            "first": a,
            "second": b,
            "games": e.games,
            "wdl": {"wins": p.wins, "draws": p.draws, "losses": p.losses},
            "score": _number(e.score),
            "score_interval": [_number(e.score_low), _number(e.score_high)],
            "elo": _number(e.diff),
            "elo_interval": [_number(e.low), _number(e.high)],
            "elo_error": _number(e.error),
            "los": _number(e.los),
            "pairs": pe.pairs,
            "pentanomial": list(pe.penta),
            "wl_dd": [wl, dd],
            "pentanomial_elo": _number(pe.diff),
            "pentanomial_elo_interval": [_number(pe.low), _number(pe.high)],
            "pentanomial_los": _number(pe.los),
            "nelo": _number(pe.nelo),
            "nelo_interval": [_number(pe.nelo - pe.nelo_error), _number(pe.nelo + pe.nelo_error)],
            "draw_ratio": _number(_ratio(p.draws, e.games)),
            "reasons": dict(sorted(p.reasons.items())),
            "incidents": {
                summary.bots[bot]: {k: p.incidents.get(bot, collections.Counter())[k] for k in INCIDENTS}
                for bot in (p.first, p.second)
            },
            "ratings": {
                name: {"rank": ranks[name], "mu": rated[name].mu, "sigma": rated[name].sigma, "ordinal": rated[name].ordinal}
                for name in (a, b)
                if name in rated
            },
        }
        if sprt is not None:
            llr, decision = sprt.state(p.wld, p.penta)
            item.update(
                llr=llr, llr_bounds=[sprt.lower, sprt.upper], llr_fraction=sprt.fraction(llr), sprt_model=sprt.model,
                sprt_counts=sprt.counts, sprt_elo=[sprt.elo0, sprt.elo1], sprt_alpha=sprt.alpha, sprt_beta=sprt.beta,
                sprt_decision=decision,
            )  # fmt: skip
        out.append(item)
    return out
