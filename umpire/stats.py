"""Tournament statistics: the score and Elo difference of a pairing with its
95% interval, the likelihood of superiority, the SPRT, and a rating list of
all bots (openskill).  Pure functions of win/loss/draw counts and results.

Elo, as cutechess-cli and fastchess report it (fastchess ``EloWDL``): with
``n`` games, ``w``/``d``/``l`` the fractions of wins, draws and losses,

* score ``s = w + d/2``; Elo difference ``E(s) = -400 log10(1/s - 1)``, the
  logistic Elo;
* per-game variance of the score ``v = w(1-s)^2 + d(1/2-s)^2 + l(0-s)^2``;
* the score's 95% interval ``s +- 1.959964 sqrt(v/n)``, mapped through ``E``;
  ``error`` is half its width, so ``diff +- error`` is what they print.

When every game had the same result ``v`` is 0 and that interval shrinks to
a point (fastchess prints ``+/- nan``); the score's interval is then
Wilson's, which stays honest at 0 and 1: ten losses in ten games give a
score in [0, 0.278], an Elo difference in [-inf, -166].

SPRT (``--sprt elo0 elo1 alpha beta``): the trinomial (win/draw/loss, no
BayesElo draw model) normal approximation of the generalised SPRT that
fastchess used before its exact MLE (and fishtest's "simplified" formula):
with ``s0 = 1/(1+10^(-elo0/400))`` and ``s1`` likewise (logistic Elo bounds),

    LLR = n (s1 - s0) (2s - s0 - s1) / (2v),

stopping when ``LLR >= log((1-beta)/alpha)`` (H1: the first bot is at least
``elo1`` stronger) or ``LLR <= log(beta/(1-alpha))`` (H0: at most ``elo0``).

An outcome that has not happened yet counts as half a game when ``s`` and
``v`` are estimated (the games counted, ``n``, stay as played).  Without it
a run of only wins has ``v = 0`` and the formula is undefined; fastchess's
0.001 of a game (made for its exact likelihood) would make this
approximation accept H1 after three straight wins.  With half a game, three
straight wins give LLR 0.1 (elo 0 against 10) and twenty give 4.6.  These
games have no draws (R-C4, R-B6, R-X4), so a draw is only ever that half game.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054  # the normal quantile of 97.5%, as fastchess's CI95ZSCORE
REGULARIZE = 0.5  # SPRT: an outcome not seen yet counts as half a game (module docstring)


def elo_from_score(score: float) -> float:
    """The logistic Elo difference of an expected score: ``-400 log10(1/s - 1)``
    (+inf at 1, -inf at 0)."""
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    """The expected score of an Elo difference: ``1 / (1 + 10^(-elo/400))``."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def wilson(p: float, n: int) -> tuple[float, float]:
    """Wilson's 95% score interval for a proportion ``p`` of ``n`` trials."""
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low, high = centre - half, centre + half
    return (0.0 if low < 1e-12 else low), (1.0 if high > 1 - 1e-12 else high)  # exactly 0 and 1 at the ends


@dataclass(frozen=True)
class EloEstimate:
    """A pairing's result from the first bot's side."""

    wins: int
    losses: int
    draws: int
    score: float  # 0..1 (nan without games)
    score_low: float  # the score's 95% interval
    score_high: float
    diff: float  # Elo difference
    low: float  # its 95% interval
    high: float
    error: float  # half the interval's width (fastchess's "+/-")
    los: float  # likelihood of superiority, 0..1

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws


def score_variance(wins: float, losses: float, draws: float) -> tuple[float, float]:
    """(mean score, per-game variance of the score) of a trinomial sample."""
    n = wins + losses + draws
    w, d, lo = wins / n, draws / n, losses / n
    s = w + 0.5 * d
    return s, w * (1.0 - s) ** 2 + d * (0.5 - s) ** 2 + lo * s**2


def estimate(wins: int, losses: int, draws: int) -> EloEstimate:
    """Score, Elo difference with its 95% interval, and LOS, as fastchess computes them."""
    n = wins + losses + draws
    if n == 0:
        nan = math.nan
        return EloEstimate(0, 0, 0, nan, nan, nan, nan, nan, nan, nan, nan)
    s, var = score_variance(wins, losses, draws)
    se = math.sqrt(var / n)
    lo_s, hi_s = (s - Z95 * se, s + Z95 * se) if var > 0 else wilson(s, n)
    diff, low, high = elo_from_score(s), elo_from_score(lo_s), elo_from_score(hi_s)
    error = (high - low) / 2.0 if math.isfinite(high - low) else math.inf
    # LOS: the chance that the first bot is the stronger; with every game alike, certain either way
    los = 0.5 * math.erfc(-(s - 0.5) / (se * math.sqrt(2))) if se > 0 else 1.0 if s > 0.5 else 0.0 if s < 0.5 else 0.5
    return EloEstimate(wins, losses, draws, s, lo_s, hi_s, diff, low, high, error, los)


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test of ``elo0`` against ``elo1`` (logistic Elo)."""

    elo0: float
    elo1: float
    alpha: float
    beta: float

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError("SPRT: elo0 must be less than elo1")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError("SPRT: alpha and beta are between 0 and 1, and their sum below 1")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, wins: int, losses: int, draws: int) -> float:
        """The log-likelihood ratio of H1 against H0 (module docstring)."""
        if wins + losses + draws == 0:
            return 0.0
        n = wins + losses + draws
        w, lo, d = (x if x else REGULARIZE for x in (wins, losses, draws))
        s, var = score_variance(w, lo, d)
        s0, s1 = score_from_elo(self.elo0), score_from_elo(self.elo1)
        return n * (s1 - s0) * (2 * s - s0 - s1) / (2 * var)

    def decision(self, wins: int, losses: int, draws: int) -> str | None:
        """``"H1"`` (accepted: at least elo1), ``"H0"`` (at most elo0), or None: play on."""
        llr = self.llr(wins, losses, draws)
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None

    def describe(self, wins: int, losses: int, draws: int) -> str:
        llr = self.llr(wins, losses, draws)
        verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "no decision yet"}[self.decision(wins, losses, draws)]
        return (
            f"SPRT elo0 {self.elo0:g}, elo1 {self.elo1:g}, alpha {self.alpha:g}, beta {self.beta:g}: "
            f"LLR {llr:.2f} in ({self.lower:.2f}, {self.upper:.2f}): {verdict}"
        )


@dataclass(frozen=True)
class Rating:
    """One bot's openskill rating (Plackett-Luce)."""

    bot: str
    mu: float
    sigma: float
    games: int
    wins: int
    losses: int
    draws: int

    @property
    def ordinal(self) -> float:
        """The conservative rating openskill sorts by: mu - 3 sigma."""
        return self.mu - 3.0 * self.sigma

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else math.nan


def ratings(bots: Sequence[str], games: Iterable[tuple[int, int, int | None]]) -> list[Rating]:
    """The rating list: each game ``(bot at seat 0, bot at seat 1, winning seat or
    None for a draw)`` (bots as indices into ``bots``), rated in the order
    given with openskill's Plackett-Luce model (a draw is a shared rank);
    best ordinal first."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = [model.rating(name=name) for name in bots]
    counts = [[0, 0, 0] for _ in bots]  # wins, losses, draws
    for a, b, winner in games:
        ranks = [0.0, 0.0] if winner is None else ([0.0, 1.0] if winner == 0 else [1.0, 0.0])
        [[ra], [rb]] = model.rate([[current[a]], [current[b]]], ranks=ranks)
        current[a], current[b] = ra, rb
        for seat, i in enumerate((a, b)):
            counts[i][2 if winner is None else 0 if winner == seat else 1] += 1
    out = [
        Rating(name, float(r.mu), float(r.sigma), sum(c), c[0], c[1], c[2])
        for name, r, c in zip(bots, current, counts, strict=True)
    ]
    return sorted(out, key=lambda r: -r.ordinal)
