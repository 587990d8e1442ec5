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

Pentanomial (fastchess ``EloPentanomial``, the default of fishtest): the
two games of a pair share an opening with colours swapped, so the unit is
the pair; its score for the first bot is 0, 1/2, 1, 3/2 or 2 points, counted
as ``[LL, LD, WL+DD, WD, WW]`` ("Ptnml(0-2)").  With ``p_i`` their
fractions and ``a_i = 0, 1/4, 1/2, 3/4, 1`` the pair's score per game,

* score ``s = sum p_i a_i``, per-pair variance ``v = sum p_i (a_i - s)^2``;
* Elo ``E(s)``, its interval ``s +- 1.959964 sqrt(v/pairs)`` through ``E``;
* normalized Elo ``nElo = (s - 1/2) / sqrt(2 v) * 800 / ln 10`` (Elo per
  unit of the per-game spread: comparable across time controls), its interval
  the same bounds of ``s`` through it.  With every pair alike (``v = 0``) nElo
  is undefined (shown ``-``) and the Elo interval is Wilson's, as above.

The pentanomial SPRT (``--sprt ... --sprt-model pentanomial``) is the
generalised SPRT of fastchess and fishtest with the exact maximum-likelihood
distributions (M. Van den Bergh, "Comparing the approximations for the
generalized log likelihood ratio of a multinomial distribution"): for
``s0``, ``s1`` the logistic scores of elo0 and elo1, ``p_i(s) = p_i / (1 +
theta (a_i - s))`` with theta solving ``sum p_i (a_i - s) / (1 + theta (a_i -
s)) = 0``, and ``LLR = pairs * sum p_i log(p_i(s1) / p_i(s0))``; an unseen
outcome counts as half a pair, as below.

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


PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)  # a pair's score per game: LL, LD, WL/DD, WD, WW
NELO = 800.0 / math.log(10.0)


@dataclass(frozen=True)
class PentaEstimate:
    """A pairing's pairs of games from the first bot's side (module docstring)."""

    penta: tuple[int, int, int, int, int]  # LL, LD, WL+DD, WD, WW
    score: float
    diff: float  # Elo
    low: float
    high: float
    error: float
    nelo: float  # normalized Elo (nan when undefined)
    nelo_error: float
    los: float

    @property
    def pairs(self) -> int:
        return sum(self.penta)


def pentanomial(pair_points: Iterable[float]) -> tuple[int, int, int, int, int]:
    """Counts ``[LL, LD, WL+DD, WD, WW]`` of pairs scoring 0, 1/2, 1, 3/2, 2 points."""
    counts = [0, 0, 0, 0, 0]
    for points in pair_points:
        counts[round(points * 2)] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]


def _penta_moments(counts: Sequence[float]) -> tuple[float, float]:
    total = sum(counts)
    p = [c / total for c in counts]
    s = sum(pi * a for pi, a in zip(p, PAIR_SCORES, strict=True))
    return s, sum(pi * (a - s) ** 2 for pi, a in zip(p, PAIR_SCORES, strict=True))


def estimate_penta(penta: Sequence[int]) -> PentaEstimate:
    """Elo, normalized Elo and LOS of pentanomial counts, as fastchess computes them."""
    pairs = sum(penta)
    counts = (penta[0], penta[1], penta[2], penta[3], penta[4])
    nan = math.nan
    if pairs == 0:
        return PentaEstimate(counts, nan, nan, nan, nan, nan, nan, nan, nan)
    s, var = _penta_moments(penta)
    se = math.sqrt(var / pairs)
    lo_s, hi_s = (s - Z95 * se, s + Z95 * se) if var > 0 else wilson(s, 2 * pairs)
    diff, low, high = elo_from_score(s), elo_from_score(lo_s), elo_from_score(hi_s)
    error = (high - low) / 2.0 if math.isfinite(high - low) else math.inf
    if var > 0:
        nelo = (s - 0.5) / math.sqrt(2 * var) * NELO
        nelo_error = Z95 * se / math.sqrt(2 * var) * NELO
        los = 0.5 * math.erfc(-(s - 0.5) / (se * math.sqrt(2)))
    else:
        nelo = nelo_error = nan
        los = 1.0 if s > 0.5 else 0.0 if s < 0.5 else 0.5
    return PentaEstimate(counts, s, diff, low, high, error, nelo, nelo_error, los)


def _mle(probs: Sequence[float], s: float) -> list[float]:
    """The distribution on PAIR_SCORES nearest ``probs`` with mean ``s`` (module docstring)."""
    lo_t = -1.0 / (PAIR_SCORES[-1] - s)
    hi_t = -1.0 / (PAIR_SCORES[0] - s)

    def f(theta: float) -> float:
        return sum(p * (a - s) / (1.0 + theta * (a - s)) for p, a in zip(probs, PAIR_SCORES, strict=True))

    a, b = lo_t, hi_t  # f falls from +inf at a to -inf at b
    for _ in range(200):
        mid = (a + b) / 2.0
        if f(mid) > 0:
            a = mid
        else:
            b = mid
    theta = (a + b) / 2.0
    return [p / (1.0 + theta * (x - s)) for p, x in zip(probs, PAIR_SCORES, strict=True)]


SPRT_MODELS = ("trinomial", "pentanomial")


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test of ``elo0`` against ``elo1`` (logistic Elo),
    on games (``trinomial``) or on pairs of games (``pentanomial``)."""

    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: str = "trinomial"

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError("SPRT: elo0 must be less than elo1")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError("SPRT: alpha and beta are between 0 and 1, and their sum below 1")
        if self.model not in SPRT_MODELS:
            raise ValueError(f"SPRT: the model is {' or '.join(SPRT_MODELS)}, not {self.model!r}")

    def to_json(self) -> dict[str, float | str]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta, "model": self.model}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Sprt:
        return cls(
            float(str(data["elo0"])),
            float(str(data["elo1"])),
            float(str(data["alpha"])),
            float(str(data["beta"])),
            str(data.get("model", "trinomial")),
        )

    def llr_penta(self, penta: Sequence[int]) -> float:
        """The log-likelihood ratio of H1 against H0 from pentanomial counts (module docstring)."""
        pairs = sum(penta)
        if pairs == 0:
            return 0.0
        counts = [c if c else REGULARIZE for c in penta]
        total = sum(counts)
        probs = [c / total for c in counts]
        p0, p1 = _mle(probs, score_from_elo(self.elo0)), _mle(probs, score_from_elo(self.elo1))
        return pairs * sum(p * (math.log(b) - math.log(a)) for p, a, b in zip(probs, p0, p1, strict=True))

    def judge(self, llr: float) -> str | None:
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None

    def state(self, wld: Sequence[int], penta: Sequence[int]) -> tuple[float, str | None]:
        """(LLR, decision) under this test's model."""
        llr = self.llr_penta(penta) if self.model == "pentanomial" else self.llr(wld[0], wld[1], wld[2])
        return llr, self.judge(llr)

    def describe_state(self, wld: Sequence[int], penta: Sequence[int]) -> str:
        llr, decision = self.state(wld, penta)
        verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "no decision yet"}[decision]
        return (
            f"SPRT ({self.model}) elo0 {self.elo0:g}, elo1 {self.elo1:g}, alpha {self.alpha:g}, beta {self.beta:g}: "
            f"LLR {llr:.2f} in ({self.lower:.2f}, {self.upper:.2f}): {verdict}"
        )

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
