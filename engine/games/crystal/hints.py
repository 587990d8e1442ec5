"""Crystal Connector on the page: how a person writes and picks a move
(engine/hints.py).  Its steps are words (the draft's, R-X1) and shifts (R-X2),
not cells: the page offers them from the legal-moves list."""

from engine.hints import End, Hints

_CRYSTALS = {"R": "red", "B": "blue", "G": "green", "Y": "yellow"}
_PIECES = {"*": "bomb", "@": "chameleon", "+": "pylon", "#": "rock"}  # R-X5

HINTS = Hints(
    players=("Player 1", "Player 2"),
    colours=None,  # each player's colours come from the draft
    syntax=(
        "The draft is words: first or second, then colours (the second picker names two, like blue green; R-X1). "
        "A turn is its shifts, like C up 2 or 2 right 3, separated by commas or semicolons, "
        "after convert C4 with the color-convertor (R-X2, R-X5)."
    ),
    examples=("first", "red", "blue green", "first", "C up 2, 2 right 3, A down 1"),
    ends={"threshold": End(won="A total reached the threshold at a round's end: {winner} wins.")},  # R-X4
    board_words={
        **_CRYSTALS,
        **{k.lower(): f"{v} with spikes" for k, v in _CRYSTALS.items()},  # R-X5 spikes
        **_PIECES,
    },
    click=None,
    # A turn (its text holds a digit) is items between commas or semicolons; the draft is words.
    step_pattern=r"[^,;]*[0-9][^,;]*|[^\s,;]+",
    joiner=", ",
    turn_notes={
        "phase": {
            "pick_order": "first or second, who picks a colour first",
            "pick_one": "one colour",
            "pick_two": "two colours",
            "move_order": "first or second, who shifts first",
            "*": "",
        },
        "shifts_due": {"0": "", "1": "1 shift", "*": "{value} shifts"},
    },
)
