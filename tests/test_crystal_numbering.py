"""Crystal Connector numbered one way everywhere, in the rules' words (issue 35, item 9).

Seed 003 names the seats "Player 1" and "Player 2"; RULES.md indexes them 0
and 1 ("player 0 is the seed's Player 1").  So every sentence names a seat by
its player (the match's name, else "Player 1"/"Player 2"), and where the API's
index must show it is paired with that name: "Player 2 (seat 1)".  A round
(R-X4) is the first mover's turn and then the second's; a position says the
same round whether play goes on or the umpire ends it there.  The draft's
words (R-X1) say what they decide: "'first'" is who picks a colour first or
who shifts first, never "plays first".
"""

from __future__ import annotations

from typing import Any

from test_crystal import IDENTITY_A, IDENTITY_B, SEED_EXAMPLE

import views
from engine.games.crystal.rules import Crystal

GAME = Crystal()
DRAFT = ["first", "red", "blue yellow", "second"]  # R-X1: Player 1 picks first, red; Player 2 blue, yellow; Player 1 shifts first


def played(moves: list[str]) -> list[tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]]:
    """Seed 003's grid dealt, then ``moves``: each move's (before, events, after) JSON."""
    state = GAME.new({"grid": SEED_EXAMPLE})
    out = []
    for move in moves:
        verdict = GAME.play(state, move)
        assert verdict.legal, (move, verdict.error)
        out.append((GAME.dump(state), verdict.events, GAME.dump(verdict.state)))
        state = verdict.state
    return out


def test_ply_10_is_round_4_before_and_after_the_umpire_ends_the_game_there() -> None:
    """The draft (4 plies) and three rounds of two turns: ply 10 waits for round 4's first turn (R-X4).
    The issue's match said "Round 4" there, then "Round 3" once adjudicated at the same ply."""
    _, _, after = played([*DRAFT, IDENTITY_A, IDENTITY_B] + [IDENTITY_A, IDENTITY_B] * 2)[-1]
    assert (after["ply"], after["turns"], after["first"]) == (10, [3, 3], 0)
    text = views.text(after)
    assert text.splitlines()[1:8] == [
        "   A B C D E F",
        "1  R R R R B G",
        "2  R Y Y R G B",
        "3  R B Y G G Y",
        "4  B G Y G B R",
        "5  Y B B G Y R",
        "6  G Y G B Y B",
    ]
    assert "Round 4, Player 1 shifts first; threshold 250 (R-X4)" in text.splitlines()
    ended, events = GAME.adjudicate(GAME.load(after), 1, "Player 1 left the hall")
    final = GAME.dump(ended)
    assert final["ply"] == 10 and final["end"] == "adjudicated"
    lines = views.text(final, events=events).splitlines()
    assert "Round 4, Player 1 shifts first; threshold 250 (R-X4)" in lines
    assert lines[-2] == "Player 2 wins by the umpire's decision."
    assert views.announcements(after, events, final) == [
        "The umpire adjudicated: Player 2 wins (Player 1 left the hall).",
        "Player 2 wins by the umpire's decision.",
    ]


def test_a_threshold_end_names_the_round_that_ended() -> None:
    """R-X4: the threshold is looked at when a round ends; the result names that round, the one just played."""
    start = GAME.dump(GAME.new({"grid": SEED_EXAMPLE, "colors": [["red", "green"], ["blue", "yellow"]], "first": 0}))
    state = GAME.load({**start, "scores": [230, 200], "turns": [7, 6], "ply": 13, "to_move": 1})
    verdict = GAME.play(state, IDENTITY_B)  # Player 2 ends round 7: 230 + 35 = 265 against 208
    final = GAME.dump(verdict.state)
    assert (final["end"], final["turns"], final["scores"]) == ("threshold", [7, 7], [265, 208])
    lines = views.text(final, events=verdict.events).splitlines()
    assert "Round 7, Player 1 shifts first; threshold 250 (R-X4)" in lines
    assert lines[-2] == "Player 1 wins 265 to 208: at the end of round 7 a total reached the threshold of 250 (R-X4)."
    assert "End of round 7: Player 1 265, Player 2 208 (threshold 250)." in views.announcements(
        GAME.dump(state), verdict.events, final
    )


def test_the_draft_is_said_as_what_it_decides_never_as_playing_first() -> None:
    """R-X1: Player 1 says who picks a colour first; Player 2, after the colours, says who shifts first."""
    headings = []
    last_lines = []
    for before, events, after in played(DRAFT):
        post = views.post(after, events=events, before=before, names=["Ann", "Bob"], format="text")
        headings.append(post.splitlines()[0])
        text = views.text(after, events=events, names=["Ann", "Bob"])
        last_lines += [line for line in text.splitlines() if "Last move" in line]
        assert "plays first" not in post and "plays second" not in post
    assert headings == [
        "Crystal Connector (no anomalies), ply 1: Ann says 'first': Ann picks a colour first",
        "Crystal Connector (no anomalies), ply 2: Ann picks red",
        "Crystal Connector (no anomalies), ply 3: Bob picks blue and yellow; Ann gets green",
        "Crystal Connector (no anomalies), ply 4: Bob says 'second': Ann shifts first",
    ]
    assert last_lines[0] == "Last move: Ann says 'first': Ann picks a colour first (R-X1)"
    _, events, after = played([*DRAFT, IDENTITY_A])[-1]
    assert views.post(after, events=events, format="text").splitlines()[0] == (
        "Crystal Connector (no anomalies), ply 5: Player 1 shifts A up 2, A up 2, A up 2"
    )


def test_a_turn_with_a_conversion_converts_then_shifts() -> None:
    """R-X5 color-convertor: the conversion comes before the shifts, and the heading says both in order."""
    state = GAME.new(
        {"grid": SEED_EXAMPLE, "colors": [["red", "green"], ["blue", "yellow"]], "first": 0, "anomalies": ["color-convertor"]}
    )
    verdict = GAME.play(state, "convert A1; A up 2, A up 2, A up 2")
    assert verdict.legal, verdict.error
    post = views.post(GAME.dump(verdict.state), events=verdict.events, before=GAME.dump(state), format="text")
    assert post.splitlines()[0] == (
        "Crystal Connector (color-convertor), ply 1: Player 1 converts A1, then shifts A up 2, A up 2, A up 2"
    )


def test_the_engine_names_a_draft_seat_as_the_rules_do() -> None:
    """The refusal of a move out of the draft's order: "Player 2 (seat 1)", never a bare "player 1"."""
    before, _, _ = played(DRAFT)[-1]
    verdict = GAME.play(GAME.load(before), "red")
    assert not verdict.legal and verdict.error is not None
    assert verdict.error.message == (
        "No colours are being picked now: Player 2 (seat 1) says 'first' or 'second' (who shifts first)."
    )
