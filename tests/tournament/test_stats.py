"""Elo difference and interval, SPRT and the openskill rating list (umpire/stats.py)."""

from __future__ import annotations

import math
import random

import pytest

from umpire.stats import Sprt, elo_from_score, estimate, ratings, score_from_elo


def test_elo_of_60_wins_20_losses_20_draws_by_hand() -> None:
    # score 0.7; per-game variance 0.6*0.3^2 + 0.2*0.2^2 + 0.2*0.7^2 = 0.054 + 0.008 + 0.098 = 0.16;
    # standard error sqrt(0.16/100) = 0.04; 95% score interval 0.7 -+ 1.959964*0.04 = [0.6216014, 0.7783986]
    e = estimate(60, 20, 20)
    assert e.games == 100
    assert e.score == pytest.approx(0.7)
    assert e.score_low == pytest.approx(0.7 - 1.959963984540054 * 0.04)
    assert e.score_high == pytest.approx(0.7 + 1.959963984540054 * 0.04)
    # -400 log10(1/0.7 - 1) = 400 log10(7/3) = 147.1907
    assert e.diff == pytest.approx(400 * math.log10(7 / 3))
    assert e.diff == pytest.approx(147.19, abs=0.01)
    assert e.low == pytest.approx(86.23, abs=0.01)  # -400 log10(1/0.6216014 - 1)
    assert e.high == pytest.approx(218.25, abs=0.01)  # -400 log10(1/0.7783986 - 1)
    assert e.error == pytest.approx((218.2518 - 86.2250) / 2, abs=0.01)  # 66.01, fastchess's "+/-"
    # LOS: P(score > 0.5) = Phi((0.7 - 0.5) / 0.04) = Phi(5)
    assert e.los == pytest.approx(0.5 * math.erfc(-5 / math.sqrt(2)))


def test_elo_edges() -> None:
    assert elo_from_score(0.5) == 0
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    assert score_from_elo(elo_from_score(0.3)) == pytest.approx(0.3)
    even = estimate(5, 5, 0)
    assert even.diff == 0 and even.los == pytest.approx(0.5)
    assert estimate(4, 0, 0).diff == math.inf and estimate(4, 0, 0).los == 1.0
    # every game alike: Wilson's interval for the score; 0 of 10 -> [0, 0.2775], Elo [-inf, -166.2]
    lost = estimate(0, 10, 0)
    assert lost.diff == -math.inf and lost.low == -math.inf and lost.score_low == 0.0
    won = estimate(6, 0, 0)
    assert won.score_high == 1.0 and won.high == math.inf and won.low == pytest.approx(-elo_from_score(1 - won.score_low))
    assert lost.score_high == pytest.approx(0.2775, abs=1e-4)
    assert lost.high == pytest.approx(-166.2, abs=0.1)
    assert math.isnan(estimate(0, 0, 0).score)


def test_sprt_bounds() -> None:
    s = Sprt(0, 10, 0.05, 0.05)
    assert s.lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944, abs=1e-3)
    assert s.upper == pytest.approx(math.log(0.95 / 0.05))
    with pytest.raises(ValueError):
        Sprt(10, 0, 0.05, 0.05)
    with pytest.raises(ValueError):
        Sprt(0, 10, 0.6, 0.5)


def test_sprt_llr_by_hand() -> None:
    # 60-20-20: n = 100, s = 0.7, v = 0.16; s0 = 0.5, s1 = 1/(1 + 10^(-10/400))
    s1 = 1 / (1 + 10 ** (-10 / 400))
    expected = 100 * (s1 - 0.5) * (2 * 0.7 - 0.5 - s1) / (2 * 0.16)
    assert Sprt(0, 10, 0.05, 0.05).llr(60, 20, 20) == pytest.approx(expected)


def run_sprt(sprt: Sprt, p_win: float, seed: int, cap: int = 20000) -> tuple[str | None, int]:
    """Feed a stream of games with the given win probability (no draws, as in these games) until the test decides."""
    rng = random.Random(seed)
    w = lo = 0
    for n in range(1, cap + 1):
        if rng.random() < p_win:
            w += 1
        else:
            lo += 1
        decided = sprt.decision(w, lo, 0)
        if decided:
            return decided, n
    return None, cap


def test_sprt_decides_synthetic_streams() -> None:
    sprt = Sprt(0, 50, 0.05, 0.05)
    # true Elo about +147 (p 0.7): H1; about -147: H0; equal (0 = elo0): H0 in most runs
    for seed in range(10):
        assert run_sprt(sprt, 0.7, seed)[0] == "H1"
        assert run_sprt(sprt, 0.3, seed)[0] == "H0"
    even = [run_sprt(sprt, 0.5, seed)[0] for seed in range(40)]
    assert even.count("H0") >= 34  # alpha = 0.05: H1 is wrongly accepted rarely
    strong = [run_sprt(sprt, score_from_elo(100), seed)[0] for seed in range(40)]
    assert strong.count("H1") >= 34  # beta = 0.05


def test_sprt_needs_more_than_a_few_straight_wins() -> None:
    sprt = Sprt(0, 10, 0.05, 0.05)
    assert sprt.decision(3, 0, 0) is None  # no variance estimate from three games
    assert 0 < sprt.llr(3, 0, 0) < 0.5
    assert sprt.decision(30, 0, 0) == "H1"
    assert sprt.decision(0, 30, 0) == "H0"
    assert "H1 accepted" in sprt.describe(30, 0, 0)


def test_openskill_list_orders_by_strength() -> None:
    # a beats b and c, b beats c, repeated: a, b, c; d only draws with c: between
    bots = ["a", "b", "c", "d"]
    games: list[tuple[int, int, int | None]] = []
    for i in range(6):
        games += [(0, 1, 0), (1, 0, 1), (0, 2, 0), (2, 1, 1)]
        games += [(3, 2, None)] if i % 2 else []
    rated = ratings(bots, games)
    order = [r.bot for r in rated]
    assert order[0] == "a" and order[-1] == "c"
    a = rated[0]
    assert (a.wins, a.losses, a.draws, a.games) == (18, 0, 0, 18)
    assert a.score == 1.0
    d = next(r for r in rated if r.bot == "d")
    assert (d.wins, d.losses, d.draws) == (0, 0, 3)
    assert all(r.sigma > 0 for r in rated)
    assert [r.ordinal for r in rated] == sorted((r.ordinal for r in rated), reverse=True)


def test_openskill_draws_keep_equal_bots_equal() -> None:
    rated = ratings(["x", "y"], [(0, 1, None)] * 5)
    assert rated[0].mu == pytest.approx(rated[1].mu)


def test_an_even_pairing_reads_plus_zero_in_the_report() -> None:
    from umpire.report import format_report, summarize

    lines = [
        {"index": i, "key": f"0v1#{i}", "pairing": [0, 1], "seats": seats, "players": [["a", "b"][s] for s in seats],
         "winner": 0, "reason": "end", "game": "catchup", "options": {}}
        for i, seats in enumerate(([0, 1], [1, 0]))
    ]  # fmt: skip
    text = format_report(summarize(lines))
    row = next(line for line in text.splitlines() if line.startswith("a vs b"))
    assert "1-1-0" in row and " +0.0 " in row and "-0.0" not in row


def test_pentanomial_by_hand() -> None:
    """fastchess's EloPentanomial: two pairs scored 1 of 2 (WL or DD), two scored 2 (WW)."""
    from umpire.stats import NELO, estimate_penta, pentanomial

    assert pentanomial([1.0, 2.0, 1.0, 2.0, 0.5, 0.0, 1.5]) == (1, 1, 2, 1, 2)
    e = estimate_penta((0, 0, 2, 0, 2))
    # score 0.5*0.5 + 0.5*1 = 0.75; per-pair variance 0.5*0.25^2 * 2 = 0.0625; se sqrt(0.0625/4) = 0.125
    assert e.pairs == 4 and e.score == pytest.approx(0.75)
    assert e.diff == pytest.approx(elo_from_score(0.75))
    assert e.low == pytest.approx(elo_from_score(0.75 - 1.959963984540054 * 0.125))
    assert e.high == pytest.approx(elo_from_score(0.75 + 1.959963984540054 * 0.125))
    # nElo = (s - 1/2) / sqrt(2 v) * 800 / ln 10 = 0.25 / sqrt(0.125) * 347.44 = 245.67
    assert e.nelo == pytest.approx(0.25 / math.sqrt(0.125) * NELO) and e.nelo == pytest.approx(245.67, abs=0.01)
    assert e.nelo_error == pytest.approx(1.959963984540054 * 0.125 / math.sqrt(0.125) * NELO)
    assert e.los == pytest.approx(0.5 * math.erfc(-(0.25 / 0.125) / math.sqrt(2)))


def test_pentanomial_when_a_side_never_lost() -> None:
    """Every pair won: the interval is Wilson's over the games, a finite lower bound; nElo is undefined."""
    from umpire.stats import estimate_penta

    e = estimate_penta((0, 0, 0, 0, 5))
    assert e.diff == math.inf and e.high == math.inf
    assert math.isfinite(e.low) and e.low == pytest.approx(estimate(10, 0, 0).low)
    assert math.isnan(e.nelo) and e.los == 1.0


def test_pentanomial_sprt_agrees_with_the_normal_approximation_and_decides() -> None:
    sprt = Sprt(0, 10, 0.05, 0.05, "pentanomial")
    penta = (100, 300, 900, 400, 150)
    s = (0.25 * 300 + 0.5 * 900 + 0.75 * 400 + 150) / 1850
    var = sum(c / 1850 * (a - s) ** 2 for c, a in zip(penta, (0, 0.25, 0.5, 0.75, 1), strict=True))
    s0, s1 = score_from_elo(0), score_from_elo(10)
    approx = 1850 * (s1 - s0) * (2 * s - s0 - s1) / (2 * var)
    assert sprt.llr_penta(penta) == pytest.approx(approx, rel=0.05)
    assert sprt.state((0, 0, 0), (0, 0, 0, 0, 0)) == (0.0, None)
    # never lost: the LLR is finite and grows with the pairs (an unseen outcome counts as half a pair), and
    # decides; the exact likelihood is far more careful than the trinomial approximation at such extremes
    assert sprt.state((0, 0, 0), (0, 0, 0, 0, 40))[1] is None
    assert sprt.state((0, 0, 0), (0, 0, 0, 0, 150))[1] == "H1"
    assert sprt.state((0, 0, 0), (150, 0, 0, 0, 0))[1] == "H0"
    assert sprt.state((0, 0, 0), (0, 0, 3, 0, 0))[1] is None  # three even pairs prove nothing yet
    with pytest.raises(ValueError, match="model"):
        Sprt(0, 10, 0.05, 0.05, "hexanomial")


def test_the_report_names_the_pentanomial_counts() -> None:
    from umpire.report import format_report, summarize

    results = [1, 1, 1, 0, 0, 0]  # a's results, games 0..5: pairs WW, WL, LL
    lines = [
        {"index": i, "key": f"0v1#{i}", "pairing": [0, 1], "number": i, "seats": [0, 1] if i % 2 == 0 else [1, 0],
         "players": ["a", "b"] if i % 2 == 0 else ["b", "a"], "winner": (0 if r else 1) if i % 2 == 0 else (1 if r else 0),
         "reason": "end", "game": "catchup", "options": {}}
        for i, r in enumerate(results)
    ]  # fmt: skip
    text = format_report(summarize(lines, Sprt(0, 10, 0.05, 0.05, "pentanomial")))
    assert "pentanomial [LL, LD, WL+DD, WD, WW] [1, 0, 1, 0, 1] of 3 pairs" in text
    assert "draw ratio 0.0%" in text and "SPRT (pentanomial)" in text
