"""Crystal Connector property tests: random games from the draft to the end, with
random anomalies, timeouts and conversions (RULES R-X1 to R-X6).

Checked after every move: totals never fall (R-X3), the grid keeps its piece
counts (R-X1, R-X5; a conversion only moves crystals inside a pair), the state
round-trips through JSON and is accepted by ``load``; every game ends; and
``replay`` of the recorded moves reproduces the final state.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.games.crystal import grid as cg
from engine.games.crystal.rules import ANOMALIES, Crystal, CrystalState, Turn

GAME = Crystal()


def random_move(state: CrystalState, rng: random.Random) -> str:
    """A legal move for the player to move, chosen at random, as notation."""
    lm = GAME.legal_moves(state)
    if state.phase != "shift":
        return rng.choice(lm.moves)
    head = ""
    if "converts" in lm.info and rng.random() < 0.3:
        head = rng.choice(lm.info["converts"]) + "; "
    shifts = []
    s = state
    for _ in range(GAME.shifts_due(state)):
        text = rng.choice(GAME.legal_moves(s).moves)  # rocks move, so each shift is chosen on the grid it meets
        shifts.append(text)
        move = GAME.parse(s, text)
        assert isinstance(move, Turn)
        s = GAME.shifted(s, move.items[0])  # type: ignore[arg-type]
    return head + ", ".join(shifts)


def check_counts(state: CrystalState, dealt: tuple[int, ...]) -> None:
    """The grid holds what was dealt: objects never change; colours change only by
    conversion, inside a pair; spikes stay on 8 crystals until both made 15 turns."""
    counts = cg.counts(state.grid)
    assert counts[cg.BOMB : cg.SPIKES] == dealt[cg.BOMB : cg.SPIKES]
    if "color-convertor" in state.anomalies and state.phase == "shift":
        for pair in state.colors:
            assert sum(counts[c] for c in pair) == sum(dealt[c] for c in pair)
    else:
        assert counts[: cg.BOMB] == dealt[: cg.BOMB]
    vanished = min(state.turns) >= 15
    assert counts[cg.SPIKES] == (8 if "spikes" in state.anomalies and not vanished else 0)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.sets(st.sampled_from(ANOMALIES)), st.booleans())
def test_random_games(seed: int, anomalies: set[str], flags: bool) -> None:
    rng = random.Random(seed)
    options = {"seed": str(seed), "anomalies": sorted(anomalies)}
    state = GAME.new(options)
    dealt = cg.counts(state.grid)
    moves: list[str] = []
    replayable = True
    for _ in range(2000):
        if GAME.is_over(state):
            break
        if flags and rng.random() < 0.05:
            new, events = GAME.timeout(state)  # R-X6: the flagged turn passes (or the draft defaults)
            assert (events[0]["type"], events[0]["player"]) == ("flag", state.to_move)
            replayable = False  # a flag is not a move
        else:
            text = random_move(state, rng)
            verdict = GAME.play(state, text)
            assert verdict.legal, (text, verdict.error)
            assert verdict.move is not None
            moves.append(verdict.move)
            new, events = verdict.state, verdict.events
        assert new.scores[0] >= state.scores[0] and new.scores[1] >= state.scores[1]  # totals never fall
        for p in (0, 1):  # the events account for every point (R-X3, R-X5 spikes)
            gained = sum(e["points"] for e in events if e["type"] in ("score", "spikes") and e["player"] == p)
            assert new.scores[p] - state.scores[p] == gained
        check_counts(new, dealt)
        data = GAME.dump(new)
        assert GAME.load(data) == new
        assert GAME.dump(GAME.load(data)) == data
        state = new
    assert GAME.is_over(state), "the game does not end"
    assert state.end == "threshold"
    assert max(state.scores) >= GAME.dump(state)["threshold"] and state.scores[0] != state.scores[1]
    assert state.winner == (0 if state.scores[0] > state.scores[1] else 1)
    assert state.turns[0] == state.turns[1]  # only at a round's end (R-X4)
    if replayable:
        replayed = GAME.replay(options, moves)
        assert replayed.valid and replayed.plies == len(moves)
        assert replayed.state == state


DRAFT = ["first", "red", "blue green", "second"]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 4), st.one_of(st.text(max_size=40), st.lists(st.text(max_size=12), min_size=1, max_size=6)))
def test_any_text_gets_a_verdict(phase: int, text: str | list[str]) -> None:  # the umpire records, it does not crash
    state = GAME.new({"seed": "text", "anomalies": ["color-convertor"]})
    for move in DRAFT[:phase]:
        state = GAME.play(state, move).state
    verdict = GAME.play(state, text)
    if not verdict.legal:
        assert verdict.error is not None and verdict.error.message.endswith((".", ")"))
        assert verdict.state == state
