"""Product as the umpire shows and says it (engine/games/product/show.py; RULES
R-E4, R-E4a, R-E4b): the turn's stones and the products they change in one
sentence, the end by what decided it, and the lines under the board."""

from __future__ import annotations

from typing import Any

import pytest
from test_product import DRAW, EQUAL_BLACK_FEWER, EQUAL_SMALL, LONE, PRODUCTS_12_11, setup, swap_colours
from viewcases import product_finished, product_midgame

import views
from engine.games.product.show import TIMES
from engine.registry import ROOMS

GAME = ROOMS["product"].game
SHOW = ROOMS["product"].show
Json = dict[str, Any]


def x(text: str) -> str:
    """The sentence with its multiplication signs, written here as " x "."""
    return text.replace(" x ", f" {TIMES} ")


def test_a_turn_and_the_products_it_raises_in_one_sentence() -> None:
    # The example: "Black places B D4 and W E5: Black's product rises to 4 x 3 = 12"
    assert views.announcements(*product_midgame()) == [
        x("Black places B D4 and W E5: Black's product rises to 3 x 2 = 6 and White's product rises to 2 x 2 = 4.")
    ]
    names = ("Ann", "Bob")
    state = GAME.play(GAME.new({"size": 3}), "W C3").state
    verdict = GAME.play(state, "w c4, b a1")
    said = views.announcements(GAME.dump(state), verdict.events, GAME.dump(verdict.state), names=names)
    assert said == ["Bob places B A1 and W C4."]  # white C3 C4 is one group: 2 x 0, no change


def test_a_product_that_falls_is_said_to_fall() -> None:
    # White: C1 C2 and C4 C5, two groups of 2 (2 x 2 = 4); W C3 joins them into one of 5: 5 x 0.
    # Five stones took three turns (R-E4a): player 1 (White) is to move.
    board = {"C1": 1, "C2": 1, "C4": 1, "C5": 1, "A1": 0}
    state = GAME.new({"size": 3, "position": board})
    verdict = GAME.play(state, "W C3 B A3")
    assert {"type": "score", "player": 1, "from": 4, "to": 0, "factors": [5, 0]} in verdict.events
    said = views.announcements(GAME.dump(state), verdict.events, GAME.dump(verdict.state))
    assert said == [x("White places B A3 and W C3: Black's product rises to 1 x 1 = 1 and White's product falls to 5 x 0 = 0.")]


def end_of(state: Any) -> list[str]:
    data = GAME.dump(state)
    end = {"type": "end", "winner": state.winner, "end": "full", **GAME.decided_by(state)}
    return views.announcements(None, [end], data)


def test_the_end_says_what_decided_it() -> None:
    assert end_of(setup(PRODUCTS_12_11, size=3)) == [
        "The board is full: the game is over (R-E4).",
        x("Black wins: Black's product 4 x 3 = 12 beats White's 11 x 1 = 11 (R-E4)."),
    ]
    assert end_of(setup(swap_colours(PRODUCTS_12_11), size=3))[1] == (
        x("White wins: White's product 4 x 3 = 12 beats Black's 11 x 1 = 11 (R-E4).")
    )
    assert end_of(setup(EQUAL_BLACK_FEWER, size=3))[1] == (
        "Black wins: the products are equal (8 each), and Black has fewer stones of their colour on the board "
        "(9 against 10; R-E4a produto)."
    )
    assert end_of(setup(swap_colours(EQUAL_SMALL)))[1] == (
        "White wins: the products are equal (0 each), and White has fewer stones of their colour on the board "
        "(3 against 4; R-E4a produto)."
    )
    assert end_of(setup(EQUAL_SMALL, variant="abstractplay"))[1] == (
        "Black wins: the products are equal (0 each), and equal products go to the first player (R-E4a abstractplay)."
    )
    assert end_of(setup(EQUAL_SMALL, variant="bentley"))[1] == "A draw: the products are equal (0 each) (R-E4a bentley)."
    assert end_of(setup(DRAW))[1] == (
        "A draw: the products are equal (1 each) and so are the stone counts (Black 3, White 3; R-E4a)."
    )


def test_the_picture_shows_products_as_factors_and_the_turn() -> None:
    text = views.text(GAME.dump(setup(LONE, lone_group="size")))
    assert "Product (produto), side 2, a lone group counts its size, ply 4" in text
    assert x("Black: groups 6; product 6 x 1 = 6") in text and x("White: groups 1; product 1 x 1 = 1") in text
    assert x("Black wins: Black's product 6 x 1 = 6 beats White's 1 x 1 = 1 (R-E4).") in text
    first = views.text(GAME.dump(GAME.new({"variant": "bentley"})))
    assert "Black to move: 1 stone of either colour, written B D4 (R-E4a)" in first
    assert "equal products: a draw (R-E4a)" in first
    _, events, after = product_midgame()
    text = views.text(after, events=events)
    assert "Last move (Black): B D4 W E5" in text
    assert "White to move: 2 stones of either colour, written B D4 W E5 (R-E4a)" in text


@pytest.mark.parametrize("fmt", ["svg", "png", "text"])
def test_new_and_finished_positions_in_every_format(fmt: str) -> None:
    for state, events in ((GAME.dump(GAME.new({})), []), (product_finished()[2], product_finished()[1])):
        out = getattr(views, fmt)(state, events=events)
        assert out and (fmt != "svg" or 'data-cell="E5"' in out or 'data-cell="C3"' in out)
