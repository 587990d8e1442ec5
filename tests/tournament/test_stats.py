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
    # four wins: Wilson's score test, Phi(2 (1 - 1/2) sqrt(4)) = Phi(2), not a certainty
    assert estimate(4, 0, 0).diff == math.inf and estimate(4, 0, 0).los == pytest.approx(0.5 * math.erfc(-2 / math.sqrt(2)))
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
    with pytest.raises(ValueError, match="model"):
        Sprt(0, 10, 0.05, 0.05, "bayesian")
    with pytest.raises(ValueError, match="counts"):
        Sprt(0, 10, 0.05, 0.05, "logistic", "hexanomial")
    # normalized bounds past what the likelihood can be computed at (fishtest raises, fastchess prints nan)
    with pytest.raises(ValueError, match="--sprt-model logistic"):
        Sprt(-400, 0, 0.05, 0.05, "normalized", "pentanomial")
    assert Sprt(0, 10, 0.05, 0.05).model == "normalized"  # the default, as fastchess's
    assert Sprt(0, 10, 0.05, 0.05).counts == "trinomial"


# The exact LLR as fishtest and fastchess compute it, from running their own code on these counts:
# fishtest server/fishtest/stats/LLRcalc.py (official-stockfish/fishtest b8eecff2: LLR_logistic,
# LLR_normalized) and fastchess app/src/matchmaking/sprt/sprt.cpp (Disservin/fastchess 74deac23:
# SPRT::getLLR, compiled as it is).  alpha = beta = 0.05: continue while the LLR is in (-2.944, 2.944).
# (W, L, D) or [LL, LD, WL+DD, WD, WW], elo0, elo1, model, fishtest's LLR, fastchess's LLR, decision
REFERENCE: list[tuple[tuple[int, ...], float, float, str, float, float, str | None]] = [
    # issue 37: the normal approximation printed 1127.3 here, and decided the next four, which both tools continue
    ((990, 5, 5), 0, 10, "logistic", 28.078848, 28.078848, "H1"),
    ((30, 0, 20), 0, 10, "logistic", 1.418339, 1.418089, None),
    ((558, 442, 0), 0, 10, "logistic", 2.924597, 2.924597, None),  # near the bound
    ((347, 278, 625), 0, 10, "logistic", 2.940039, 2.940042, None),  # 0.005 below it
    ((507, 593, 0), 0, 10, "logistic", -2.930851, -2.930851, None),
    ((4250, 0, 0), 0, 10, "logistic", 120.564679, 120.564679, "H1"),
    ((3, 0, 0), 0, 10, "logistic", 0.085104, 0.085104, None),
    ((990, 5, 5), 0, 10, "normalized", 28.004282, 28.004282, "H1"),
    ((30, 0, 20), 0, 10, "normalized", 1.095982, 1.095982, None),
    ((558, 442, 0), 0, 10, "normalized", 2.924250, 2.924250, None),
    ((347, 278, 625), 0, 10, "normalized", 2.291539, 2.291539, None),
    ((507, 593, 0), 0, 10, "normalized", -2.930382, -2.930382, None),
    ((36433, 36027, 68692), 0, 2, "normalized", 0.923293, 0.923293, None),  # fastchess's own test: 0.92
    ((4250, 0, 0), 0, 10, "normalized", 120.548268, 120.548268, "H1"),  # fastchess's own test: 120.56
    ((0, 1, 0), -5, 0, "normalized", -0.014280, -0.014280, None),
    # pentanomial: issue 37's six lost pairs (an empty cell counted as half a pair gave -1.79 here)
    ((6, 0, 0, 0, 0), -400, 0, "logistic", -3.587104, -3.587025, "H0"),
    ((223, 9863, 21279, 10037, 246), 0.5, 2.5, "logistic", -3.074126, -3.074423, "H0"),  # fastchess's: -3.07
    ((0, 0, 0, 0, 5550), 0, 5, "logistic", 79.296251, 79.296251, "H1"),
    ((365, 16618, 36229, 16974, 390), 0, 2, "normalized", 2.250368, 2.250368, None),  # fastchess's: 2.25
    ((0, 0, 0, 0, 5550), 0, 5, "normalized", 111.797555, 111.797555, "H1"),  # fastchess's: 111.82
    ((0, 0, 0, 1, 0), 0, 10, "normalized", 0.027951, 0.027951, None),
    ((1, 0, 1, 0, 1), 0, 10, "logistic", -0.001866, -0.001865, None),
]


@pytest.mark.parametrize(("counts", "elo0", "elo1", "model", "fishtest", "fastchess", "decision"), REFERENCE)
def test_the_llr_is_fishtests_and_fastchesss(
    counts: tuple[int, ...], elo0: float, elo1: float, model: str, fishtest: float, fastchess: float, decision: str | None
) -> None:
    if len(counts) == 3:
        sprt = Sprt(elo0, elo1, 0.05, 0.05, model, "trinomial")
        llr, decided = sprt.state(counts, (0, 0, 0, 0, 0))
    else:
        sprt = Sprt(elo0, elo1, 0.05, 0.05, model, "pentanomial")
        llr, decided = sprt.state((0, 0, 0), counts)
    assert llr == pytest.approx(fishtest, rel=1e-5, abs=1e-6)  # the same computation, to the last printed digit
    assert llr == pytest.approx(fastchess, rel=0.01, abs=1e-3)  # fastchess solves for theta to 1e-3 only
    assert decided == decision


def test_the_llr_functions_take_fishtests_order() -> None:
    """``[L, D, W]`` and ``[LL, LD, WL+DD, WD, WW]``, ascending scores, as LLRcalc.py's results lists."""
    from umpire.stats import llr_logistic, llr_normalized, regularize

    assert llr_logistic(0, 10, [5, 5, 990]) == pytest.approx(28.078848, abs=1e-6)
    assert llr_normalized(0, 10, [5, 5, 990]) == pytest.approx(28.004282, abs=1e-6)
    assert regularize([0, 3, 0]) == [0.001, 3, 0.001]
    assert Sprt(0, 10, 0.05, 0.05).llr((0, 0, 0), (0, 0, 0, 0, 0)) == 0.0  # nothing played, nothing known


def test_old_results_files_keep_their_sprt() -> None:
    """Before the Elo models, ``model`` named the counts and the bounds were logistic Elo."""
    old = Sprt.from_json({"elo0": 0, "elo1": 10, "alpha": 0.05, "beta": 0.05, "model": "pentanomial"})
    assert (old.model, old.counts) == ("logistic", "pentanomial")
    new = Sprt(0, 5, 0.05, 0.1, "normalized", "pentanomial")
    assert Sprt.from_json(new.to_json()) == new


def test_fastchess_prints_the_llr_so() -> None:
    """output_fastchess.hpp printSprt: ``LLR: {:.2f} ({:.1f}%) {bounds} {elo}``, the fraction of the
    bound it leans to (negative below 0, as getFraction)."""
    sprt = Sprt(0, 10, 0.05, 0.05, "logistic")
    assert sprt.fastchess_line((990, 5, 5), (0, 0, 0, 0, 0)) == "LLR: 28.08 (953.6%) (-2.94, 2.94) [0.00, 10.00]"
    lost = Sprt(-400, 0, 0.05, 0.05, "logistic", "pentanomial")
    assert lost.fastchess_line((0, 12, 0), (6, 0, 0, 0, 0)) == "LLR: -3.59 (-121.8%) (-2.94, 2.94) [-400.00, 0.00]"


def run_sprt(sprt: Sprt, p_win: float, seed: int, cap: int = 20000) -> tuple[str | None, int]:
    """Feed a stream of games with the given win probability (no draws, as in these games) until the test decides."""
    rng = random.Random(seed)
    w = lo = 0
    for n in range(1, cap + 1):
        if rng.random() < p_win:
            w += 1
        else:
            lo += 1
        decided = sprt.state((w, lo, 0), (0, 0, 0, 0, 0))[1]
        if decided:
            return decided, n
    return None, cap


def test_sprt_decides_synthetic_streams() -> None:
    sprt = Sprt(0, 50, 0.05, 0.05, "logistic")
    # true Elo about +147 (p 0.7): H1; about -147: H0; equal (0 = elo0): H0 in most runs
    for seed in range(10):
        assert run_sprt(sprt, 0.7, seed)[0] == "H1"
        assert run_sprt(sprt, 0.3, seed)[0] == "H0"
    even = [run_sprt(sprt, 0.5, seed)[0] for seed in range(40)]
    assert even.count("H0") >= 34  # alpha = 0.05: H1 is wrongly accepted rarely
    strong = [run_sprt(sprt, score_from_elo(100), seed)[0] for seed in range(40)]
    assert strong.count("H1") >= 34  # beta = 0.05


def test_sprt_needs_many_straight_wins_for_ten_elo() -> None:
    """An unseen outcome is 0.001 of one, as in both tools: a run of wins proves +10 Elo only after
    about 100 games, not after three (where the normal approximation with no spread decided)."""
    for model in ("logistic", "normalized"):
        sprt = Sprt(0, 10, 0.05, 0.05, model)
        llr, decided = sprt.state((3, 0, 0), (0,) * 5)
        assert llr == pytest.approx(0.085, abs=1e-3) and decided is None
        assert sprt.state((100, 0, 0), (0,) * 5)[1] is None
        assert sprt.state((200, 0, 0), (0,) * 5)[1] == "H1"
        assert sprt.state((0, 200, 0), (0,) * 5)[1] == "H0"
        assert "H1 accepted" in sprt.describe_state((200, 0, 0), (0,) * 5)


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
    assert math.isnan(e.nelo) and e.los == pytest.approx(estimate(10, 0, 0).los)


def test_pentanomial_sprt_decides() -> None:
    sprt = Sprt(0, 10, 0.05, 0.05, "logistic", "pentanomial")
    assert sprt.state((0, 0, 0), (0, 0, 0, 0, 0)) == (0.0, None)
    # never lost: the LLR is finite and grows with the pairs, and decides
    assert sprt.state((0, 0, 0), (0, 0, 0, 0, 40))[1] is None
    assert sprt.state((0, 0, 0), (0, 0, 0, 0, 150))[1] == "H1"
    assert sprt.state((0, 0, 0), (150, 0, 0, 0, 0))[1] == "H0"
    assert sprt.state((0, 0, 0), (0, 0, 3, 0, 0))[1] is None  # three even pairs prove nothing yet


def test_the_report_names_the_pentanomial_counts() -> None:
    from umpire.report import format_report, summarize

    results = [1, 1, 1, 0, 0, 0]  # a's results, games 0..5: pairs WW, WL, LL
    lines = [
        {"index": i, "key": f"0v1#{i}", "pairing": [0, 1], "number": i, "seats": [0, 1] if i % 2 == 0 else [1, 0],
         "players": ["a", "b"] if i % 2 == 0 else ["b", "a"], "winner": (0 if r else 1) if i % 2 == 0 else (1 if r else 0),
         "reason": "end", "game": "catchup", "options": {}}
        for i, r in enumerate(results)
    ]  # fmt: skip
    text = format_report(summarize(lines, Sprt(0, 10, 0.05, 0.05, "logistic", "pentanomial")))
    assert "pentanomial [LL, LD, WL+DD, WD, WW] [1, 0, 1, 0, 1] of 3 pairs" in text
    assert "drawn games 0.0%" in text and "SPRT (logistic, pentanomial)" in text


def test_los_and_the_interval_tell_one_story() -> None:
    """Issue 37: one win printed an interval down to negative Elo beside "LOS 100.0%".  Now the
    interval excludes Elo 0 exactly when LOS is past 97.5% (or below 2.5%): both come from one
    test, fastchess's normal one where the results spread, Wilson's score test where they do not."""
    from umpire.stats import estimate_penta

    one_win = estimate(1, 0, 0)
    assert one_win.low < 0 < one_win.high and one_win.los < 0.975
    assert one_win.los == pytest.approx(0.8413, abs=1e-4)  # Phi(1)
    one_wd_pair = estimate_penta((0, 0, 0, 1, 0))
    assert one_wd_pair.low < 0 < one_wd_pair.high and one_wd_pair.los < 0.975
    for w in range(8):
        for lo in range(8):
            for d in range(3):
                if w + lo + d:
                    e = estimate(w, lo, d)
                    assert (e.low > 0) == (e.los > 0.975) and (e.high < 0) == (e.los < 0.025), (w, lo, d)
    for penta in [(0, 0, 0, 0, 3), (0, 0, 0, 2, 0), (4, 0, 0, 0, 0), (0, 1, 0, 0, 0), (0, 0, 5, 0, 0), (1, 0, 0, 0, 5)]:
        pe = estimate_penta(penta)
        assert (pe.low > 0) == (pe.los > 0.975) and (pe.high < 0) == (pe.los < 0.025), penta
