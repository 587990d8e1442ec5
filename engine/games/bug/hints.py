"""Bug on the page: how a person writes and clicks a move (engine/hints.py)."""

from engine.hints import End, Hints

HINTS = Hints(
    players=("Red", "Blue"),
    colours=("#d55e00", "#0072b2"),
    syntax=(
        "The grow cell, then one bonus cell for each eat, in order, separated by spaces or commas (R-B5); "
        "Green Meadow's first two turns name the cell to blacken."
    ),
    examples=("B1", "C4", "C3 C4"),
    ends={"stuck": End(won="The player to move cannot grow: {winner} wins.")},  # R-B6
    board_words={"0": "Red's piece", "1": "Blue's piece"},
    named_words={"0": "{player0}'s piece", "1": "{player1}'s piece"},
)
