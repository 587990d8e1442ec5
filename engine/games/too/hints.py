"""Too on the page: how a person writes and clicks a move (engine/hints.py).
A step carries its stone's colour, picked on the page before the cell."""

from engine.hints import Choice, Click, End, Hints

HINTS = Hints(
    players=("Black", "White"),
    colours=("#1f1f1f", "#fcfcfc"),
    syntax="A stone of either colour on an empty cell: the colour, B or W, then the cell (R-E2).",
    examples=("B D4", "W E5", "b c3"),
    ends={"full": End(won="The board is full: {winner} wins.")},  # R-E2: no draws
    board_words={"0": "black stone", "1": "white stone"},
    click=Click(
        step="{choice} {cell}",
        choices=(Choice("B", "Black", "#1f1f1f"), Choice("W", "White", "#fcfcfc")),
        label="Colour",
    ),
    step_pattern=r"[^\s,]+[\s,]+[^\s,]+",
    joiner=", ",
)
