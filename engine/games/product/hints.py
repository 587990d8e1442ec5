"""Product on the page: how a person writes and clicks a move (engine/hints.py).
A step is one stone, carrying its colour, picked on the page before the cell;
how many stones the turn places is the state's ``stones_due`` (R-E4a)."""

from engine.hints import Choice, Click, End, Hints

HINTS = Hints(
    players=("Black", "White"),
    colours=("#1f1f1f", "#fcfcfc"),
    syntax=(
        "The turn's stones, each its colour, B or W, then its cell, in any order, separated by spaces or commas: "
        "one stone on the first turn, then two a turn (one when a single empty cell is left); one a turn in the "
        "bentley variant (R-E4, R-E4a)."
    ),
    examples=("W E5", "B D4 W E6", "b c3, w f5"),
    ends={"full": End(won="The board is full: {winner} wins.", drawn="The board is full: a draw.")},  # R-E4a
    board_words={"0": "black stone (Black's colour)", "1": "white stone (White's colour)"},
    named_words={"0": "black stone ({player0}'s colour)", "1": "white stone ({player1}'s colour)"},  # R-E4
    click=Click(
        step="{choice} {cell}",
        choices=(Choice("B", "Black", "#1f1f1f"), Choice("W", "White", "#fcfcfc")),
        label="Colour",
    ),
    step_pattern=r"[^\s,]+[\s,]+[^\s,]+",
    joiner=" ",
    turn_notes={"stones_due": {"1": "1 stone of either colour", "2": "2 stones of either colour", "0": ""}},
)
