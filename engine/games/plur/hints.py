"""Plur on the page: how a person writes and clicks a move (engine/hints.py)."""

from engine.hints import End, Hints

HINTS = Hints(
    players=("Black", "White"),
    colours=("#1f1f1f", "#fcfcfc"),
    syntax="One empty cell, for a stone of your colour (R-E1); with the pie rule, player 1's first turn may say swap (R-E1a).",
    examples=("D4", "E5", "C3"),
    ends={"full": End(won="The board is full: {winner} wins.", drawn="The board is full: a draw.")},  # R-E1
    board_words={"0": "black stone", "1": "white stone"},
    named_words={"0": "{player0}'s stone (black)", "1": "{player1}'s stone (white)"},  # R-E1: player 0 owns black
)
