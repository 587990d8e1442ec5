"""Tournament statistics: the score and Elo difference of a pairing with its
95% interval, the likelihood of superiority, the SPRT, and a rating list of
all bots (openskill).  Pure functions of win/loss/draw counts and results.

Elo, as cutechess-cli and fastchess report it (fastchess ``EloWDL``): with
``n`` games, ``w``/``d``/``l`` the fractions of wins, draws and losses,

* score ``s = w + d/2``; Elo difference ``E(s) = -400 log10(1/s - 1)``, the
  logistic Elo;
* per-game variance of the score ``v = w(1-s)^2 + d(1/2-s)^2 + l(0-s)^2``;
* the score's 95% interval ``s +- 1.959964 sqrt(v/n)``, mapped through ``E``;
  ``error`` is half its width, so ``diff +- error`` is what they print;
* LOS, the likelihood that the first bot is the stronger,
  ``Phi((s - 1/2) / sqrt(v/n))``: the interval excludes Elo 0 exactly when
  LOS is above 97.5% or below 2.5%.

When every game had the same result ``v`` is 0 and that interval shrinks to
a point (fastchess prints ``+/- nan``) and LOS to 0 or 100%; both then come
from Wilson's score test instead, which stays honest at 0 and 1: the
interval is Wilson's (ten losses in ten games: a score in [0, 0.278], an Elo
difference in [-inf, -166]) and LOS is ``Phi(2 (s - 1/2) sqrt(n))``, the same
test's statistic, so they still tell one story (one win: an interval down to
-233 Elo beside LOS 84.1%, not 100%).

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
  is undefined (shown ``-``), and the Elo interval and LOS are Wilson's over
  the ``2 pairs`` games, as above.

SPRT (``--sprt elo0 elo1 alpha beta``): the generalised SPRT with the exact
maximum-likelihood distributions, as fishtest (``server/fishtest/stats/
LLRcalc.py``: ``LLR_logistic``, ``LLR_normalized``) and fastchess
(``app/src/matchmaking/sprt/sprt.cpp``) compute it (M. Van den Bergh,
"Comparing the approximations for the generalized log likelihood ratio of a
multinomial distribution" and "Comments on normalized Elo").  The counts
(``--sprt-counts``) are the games' ``[L, D, W]`` (``trinomial``, the
default) or the pairs' ``[LL, LD, WL+DD, WD, WW]`` (``pentanomial``), with
scores ``a_i`` as above; an outcome not seen yet counts as 0.001 of one
(their ``regularize``), and ``N`` is the sum of the counts so regularised;
``p_i`` their fractions.

* ``logistic`` (``--sprt-model logistic``): elo0 and elo1 are logistic Elo,
  ``s0 = 1 / (1 + 10^(-elo0/400))`` and ``s1``.  The distribution nearest the
  counts with mean ``s`` is ``p_i / (1 + theta (a_i - s))``, theta solving
  ``sum p_i (a_i - s) / (1 + theta (a_i - s)) = 0``;
* ``normalized`` (the default, as fastchess's ``model=normalized``): elo0 and
  elo1 are normalized Elo, ``t = nElo / (800 / ln 10)`` (times ``sqrt 2`` on
  pairs); the distribution nearest the counts with ``(mean - 1/2) / sd = t``
  is found by ten rounds (at most) of the same secular equation with
  ``phi_i = a_i - 1/2 - t sd (1 + ((a_i - mean) / sd)^2) / 2``, starting from
  the uniform distribution;

and ``LLR = N sum p_i log(p1_i / p0_i)``, stopping when ``LLR >= log((1 -
beta) / alpha)`` (H1: the first bot is at least ``elo1`` stronger) or ``LLR
<= log(beta / (1 - alpha))`` (H0: at most ``elo0``).  The secular equation is
solved by bisection to the last bit (fishtest uses Brent's method to 2e-12,
fastchess the ITP method to 1e-3 in theta; all agree to 1% and better).
These games have no draws (R-C4, R-B6, R-X4), so a draw's count is only
ever that 0.001.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054  # the normal quantile of 97.5%, as fastchess's CI95ZSCORE


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


def likelihood_of_superiority(s: float, se: float, n: int) -> float:
    """The chance that the first bot is the stronger, ``Phi((s - 1/2) / se)``; with no spread
    (``se`` 0: every game alike) Wilson's score test over ``n`` games, ``Phi(2 (s - 1/2) sqrt(n))``,
    the test whose interval is then shown (module docstring)."""
    z = (s - 0.5) / se if se > 0 else 2.0 * (s - 0.5) * math.sqrt(n)
    return 0.5 * math.erfc(-z / math.sqrt(2))


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
    los = likelihood_of_superiority(s, se, n)
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


def estimate_penta(penta: Sequence[int]) -> PentaEstimate:
    """Elo, normalized Elo and LOS of pentanomial counts, as fastchess computes them."""
    pairs = sum(penta)
    counts = (penta[0], penta[1], penta[2], penta[3], penta[4])
    nan = math.nan
    if pairs == 0:
        return PentaEstimate(counts, nan, nan, nan, nan, nan, nan, nan, nan)
    s, var = _moments(PAIR_SCORES, [c / pairs for c in penta])
    se = math.sqrt(var / pairs)
    lo_s, hi_s = (s - Z95 * se, s + Z95 * se) if var > 0 else wilson(s, 2 * pairs)
    diff, low, high = elo_from_score(s), elo_from_score(lo_s), elo_from_score(hi_s)
    error = (high - low) / 2.0 if math.isfinite(high - low) else math.inf
    if var > 0:
        nelo = (s - 0.5) / math.sqrt(2 * var) * NELO
        nelo_error = Z95 * se / math.sqrt(2 * var) * NELO
    else:
        nelo = nelo_error = nan
    los = likelihood_of_superiority(s, se, 2 * pairs)
    return PentaEstimate(counts, s, diff, low, high, error, nelo, nelo_error, los)


SPRT_MODELS = ("normalized", "logistic")  # what elo0 and elo1 mean (fastchess's model=); the first is the default
SPRT_COUNTS = ("trinomial", "pentanomial")  # what is counted: games or pairs of games; the first is the default
GAME_SCORES = (0.0, 0.5, 1.0)  # a game's score: L, D, W
REGULARIZE = 1e-3  # an outcome not seen yet counts as 0.001 of one, as fishtest's and fastchess's regularize
MLE_ROUNDS = 10  # the normalized MLE's rounds at most (fishtest's MLE_t_value, fastchess's getLLR_normalized)
MLE_TOLERANCE = 1e-9  # and the change of every probability that ends them (fishtest's)


def regularize(counts: Sequence[float]) -> list[float]:
    """The counts with each zero made 0.001 (fishtest ``regularize``, fastchess ``regularize``)."""
    return [c if c else REGULARIZE for c in counts]


def secular(probs: Sequence[float], phi: Sequence[float]) -> float:
    """The root theta of ``sum p_i phi_i / (1 + theta phi_i) = 0`` between ``-1 / max phi`` and
    ``-1 / min phi`` (where every ``1 + theta phi_i`` is positive), by bisection to the last bit:
    the sum falls from +inf to -inf across that interval.  ``ValueError`` when the ``phi_i`` do not
    straddle zero (no such distribution: fishtest raises likewise)."""
    low, high = min(phi), max(phi)
    if not low < 0 < high:
        raise ValueError("the secular equation has no root: its support does not straddle zero")
    a, b = -1.0 / high, -1.0 / low
    for _ in range(2000):
        mid = (a + b) / 2.0
        if not a < mid < b:
            break  # a and b are neighbouring floats
        value = math.fsum(p * f / (1.0 + mid * f) for p, f in zip(probs, phi, strict=True))
        if value > 0:
            a = mid
        elif value < 0:
            b = mid
        else:
            return mid
    return (a + b) / 2.0


def _moments(scores: Sequence[float], probs: Sequence[float]) -> tuple[float, float]:
    mean = math.fsum(p * a for p, a in zip(probs, scores, strict=True))
    return mean, math.fsum(p * (a - mean) ** 2 for p, a in zip(probs, scores, strict=True))


def mle_expected(scores: Sequence[float], probs: Sequence[float], s: float) -> list[float]:
    """The distribution on ``scores`` nearest ``probs`` (maximum likelihood) whose mean is ``s``
    (fishtest ``MLE_expected``; Van den Bergh, Proposition 1.1)."""
    phi = [a - s for a in scores]
    theta = secular(probs, phi)
    return [p / (1.0 + theta * f) for p, f in zip(probs, phi, strict=True)]


def mle_t_value(scores: Sequence[float], probs: Sequence[float], ref: float, t: float) -> list[float]:
    """The distribution on ``scores`` nearest ``probs`` whose ``(mean - ref) / sd`` is ``t``
    (fishtest ``MLE_t_value``; Van den Bergh, "Comments on normalized Elo", section 4.1)."""
    current = [1.0 / len(scores)] * len(scores)
    for _ in range(MLE_ROUNDS):
        mean, var = _moments(scores, current)
        sd = math.sqrt(var)
        phi = [a - ref - t * sd * (1.0 + ((mean - a) / sd) ** 2) / 2.0 for a in scores]
        theta = secular(probs, phi)
        new = [p / (1.0 + theta * f) for p, f in zip(probs, phi, strict=True)]
        done = max(abs(x - y) for x, y in zip(new, current, strict=True)) < MLE_TOLERANCE
        current = new
        if done:
            break
    return current


def _llr(counts: Sequence[float], fit: Callable[[list[float], list[float]], tuple[list[float], list[float]]]) -> float:
    """``N sum p_i log(p1_i / p0_i)`` for the (regularised) ``counts``, ``fit`` giving the two MLEs."""
    counts = regularize(counts)
    total = math.fsum(counts)
    probs = [c / total for c in counts]
    scores = list(GAME_SCORES) if len(counts) == 3 else list(PAIR_SCORES)
    p0, p1 = fit(scores, probs)
    return total * math.fsum(p * (math.log(b) - math.log(a)) for p, a, b in zip(probs, p0, p1, strict=True))


def llr_logistic(elo0: float, elo1: float, counts: Sequence[float]) -> float:
    """The log-likelihood ratio of logistic Elo ``elo1`` against ``elo0`` for ``counts``: ``[L, D, W]``
    or ``[LL, LD, WL+DD, WD, WW]`` (fishtest ``LLR_logistic``; module docstring)."""
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return _llr(counts, lambda scores, probs: (mle_expected(scores, probs, s0), mle_expected(scores, probs, s1)))


def llr_normalized(nelo0: float, nelo1: float, counts: Sequence[float]) -> float:
    """The log-likelihood ratio of normalized Elo ``nelo1`` against ``nelo0`` for ``counts``
    (fishtest ``LLR_normalized``; module docstring)."""
    scale = 1.0 if len(counts) == 3 else math.sqrt(2.0)  # a pair's t is sqrt(2) times a game's
    t0, t1 = (scale * e / NELO for e in (nelo0, nelo1))
    return _llr(counts, lambda scores, probs: (mle_t_value(scores, probs, 0.5, t0), mle_t_value(scores, probs, 0.5, t1)))


# the widest normalized bounds the MLE's first round (from the uniform distribution) can take
# (|t| below 0.98 a game, 0.94 a pair): fishtest and fastchess cannot compute wider ones either
NORMALIZED_LIMIT = 200.0


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test of ``elo0`` against ``elo1`` (module docstring):
    normalized or logistic Elo (``model``), on games (``trinomial``) or pairs (``pentanomial``)."""

    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: str = SPRT_MODELS[0]
    counts: str = SPRT_COUNTS[0]

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError("SPRT: elo0 must be less than elo1")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError("SPRT: alpha and beta are between 0 and 1, and their sum below 1")
        if self.model not in SPRT_MODELS:
            raise ValueError(f"SPRT: the model is {' or '.join(SPRT_MODELS)}, not {self.model!r}")
        if self.counts not in SPRT_COUNTS:
            raise ValueError(f"SPRT: the counts are {' or '.join(SPRT_COUNTS)}, not {self.counts!r}")
        if self.model == "normalized" and max(abs(self.elo0), abs(self.elo1)) > NORMALIZED_LIMIT:
            raise ValueError(
                f"SPRT: normalized Elo bounds are within +-{NORMALIZED_LIMIT:g} (the likelihood cannot be computed "
                "past them; fishtest and fastchess cannot either): narrower bounds, or --sprt-model logistic"
            )

    def to_json(self) -> dict[str, float | str]:
        return {
            "elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta,
            "model": self.model, "counts": self.counts,
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Sprt:
        """An SPRT as a results file keeps it; before the exact LLR, ``model`` named the counts
        (``trinomial``, ``pentanomial``) and the bounds were logistic Elo."""
        model, counts = str(data.get("model", SPRT_MODELS[0])), data.get("counts")
        if model in SPRT_COUNTS and counts is None:
            model, counts = "logistic", model
        number = [float(str(data[k])) for k in ("elo0", "elo1", "alpha", "beta")]
        return cls(number[0], number[1], number[2], number[3], model, str(counts or SPRT_COUNTS[0]))

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, wld: Sequence[int], penta: Sequence[int]) -> float:
        """The log-likelihood ratio of H1 against H0 from the first bot's W-L-D and its pairs'
        ``[LL, LD, WL+DD, WD, WW]``, under this test's counts and model; 0 before any."""
        counts: list[float] = [wld[1], wld[2], wld[0]] if self.counts == "trinomial" else list(penta)
        if not any(counts):
            return 0.0
        compute = llr_normalized if self.model == "normalized" else llr_logistic
        return compute(self.elo0, self.elo1, counts)

    def judge(self, llr: float) -> str | None:
        """``"H1"`` (accepted: at least elo1), ``"H0"`` (at most elo0), or None: play on."""
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None

    def state(self, wld: Sequence[int], penta: Sequence[int]) -> tuple[float, str | None]:
        """(LLR, decision)."""
        llr = self.llr(wld, penta)
        return llr, self.judge(llr)

    def fraction(self, llr: float) -> float:
        """How far the LLR went towards the bound it leans to (fastchess ``getFraction``: negative below 0)."""
        return llr / self.upper if llr >= 0 else -llr / self.lower

    def title(self) -> str:
        """``SPRT (normalized, trinomial) elo0 0, elo1 10, alpha 0.05, beta 0.05``."""
        return (
            f"SPRT ({self.model}, {self.counts}) elo0 {self.elo0:g}, elo1 {self.elo1:g}, alpha {self.alpha:g}, beta {self.beta:g}"
        )

    def describe_state(self, wld: Sequence[int], penta: Sequence[int]) -> str:
        llr, decision = self.state(wld, penta)
        verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "no decision yet"}[decision]
        return f"{self.title()}: LLR {llr:.2f} in ({self.lower:.2f}, {self.upper:.2f}): {verdict}"

    def fastchess_line(self, wld: Sequence[int], penta: Sequence[int]) -> str:
        """fastchess's ``LLR: 2.95 (100.2%) (-2.94, 2.94) [0.00, 10.00]`` (its ``printSprt``)."""
        llr = self.llr(wld, penta)
        return (
            f"LLR: {llr:.2f} ({self.fraction(llr) * 100:.1f}%) ({self.lower:.2f}, {self.upper:.2f}) "
            f"[{self.elo0:.2f}, {self.elo1:.2f}]"
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
