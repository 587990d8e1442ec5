"""Catchup on the page: how a person writes and clicks a move (engine/hints.py)."""

from engine.hints import End, Hints

HINTS = Hints(
    players=("Red", "Blue"),
    colours=("#d55e00", "#0072b2"),
    syntax=(
        "The cells of the turn's stones, separated by spaces or commas: one stone on the first turn, "
        "then 1 or 2, or up to 3 when the bonus is due (R-C1, R-C3)."
    ),
    examples=("E5", "D7 F8", "C3 C4"),
    ends={"full": End(won="The board is full: {winner} wins.", drawn="The board is full: a draw.")},  # R-C4
    board_words={"0": "Red's stone", "1": "Blue's stone"},
    named_words={"0": "{player0}'s stone", "1": "{player1}'s stone"},
    turn_notes={"max_stones": {"1": "1 stone", "2": "1 or 2 stones", "3": "1 to 3 stones", "*": "up to {value} stones"}},
)
