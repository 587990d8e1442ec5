"""The engine's one error model.

Errors are split by cause, as python-chess does:

* ``InvalidMove``  - the text cannot be read as a move at all (bad notation).
* ``IllegalMove``  - the move was read, but a rule forbids it.  ``code`` is a
  stable machine word, ``message`` one plain sentence naming the first wrong
  step, ``step`` the 0-based index of that step inside the move (or ``None``
  when the move is wrong as a whole, e.g. too many stones), ``rule`` the
  ruling of RULES.md it breaks (``"R-C1"``), given apart from the sentence.
* ``BadState``     - a state handed in by a client is malformed or impossible.
* ``BadOptions``   - game options that are unknown or out of range.

``BadState`` and ``BadOptions`` are ``FieldError``s: they carry ``field``, a
dotted path to the offending value (``state.board.E5``, ``options.size``), so
that the service can report it without knowing any rule.

Both move errors are ``MoveError``s (carrying ``step`` and ``rule``) and
*answers* (a verdict of ``legal: false``), not failures; the service maps
``BadState``/``BadOptions`` to HTTP 422 in one place.

A move error's sentence names the wrong step by what it says (``"Bonus cell
B3 is not due"``, ``"'C up 2' moves column C"``), never by a count, so it
cannot disagree with ``step``; and it does not cite the ruling, which is
``rule`` (a front end shows or links it as it likes).
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base of every error the engine raises on purpose."""

    code: str = "engine_error"

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message}


class MoveError(EngineError):
    """A move answered with ``legal: false``; ``step`` is the 0-based index of
    the first wrong step, or ``None`` when the move is wrong as a whole;
    ``rule`` is the ruling it breaks (``"R-B4"``), or ``None``."""

    def __init__(self, code: str, message: str, step: int | None = None, rule: str | None = None) -> None:
        super().__init__(code, message)
        self.step = step
        self.rule = rule

    def to_json(self) -> dict[str, object]:
        """``{"code", "message", "step"?, "rule"?}``: the error of a verdict."""
        out = super().to_json()
        if self.step is not None:
            out["step"] = self.step
        if self.rule is not None:
            out["rule"] = self.rule
        return out


class InvalidMove(MoveError):
    """The move text cannot be parsed (R-H3 notation, Crystal shift syntax...)."""

    def __init__(self, message: str, code: str = "bad_notation", step: int | None = None, rule: str | None = None) -> None:
        super().__init__(code, message, step, rule)


class IllegalMove(MoveError):
    """The move was understood but breaks a rule; ``step`` is the first wrong step."""


class FieldError(EngineError):
    """Something a client sent is wrong at ``field``, a dotted path to the value."""

    def __init__(self, field: str, message: str, code: str) -> None:
        super().__init__(code, message)
        self.field = field

    def to_json(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, "field": self.field}


class BadState(FieldError):
    """A client-sent state is malformed or impossible; ``field`` names where."""

    def __init__(self, field: str, message: str, code: str = "bad_state") -> None:
        super().__init__(field, message, code)


class BadOptions(FieldError):
    """Unknown or out-of-range game options; ``field`` names which."""

    def __init__(self, field: str, message: str, code: str = "bad_options") -> None:
        super().__init__(field, message, code)


# Every code of an illegal move (a verdict's ``error.code``), with when: the
# spec's table is generated from this, and a test finds every code the engine
# raises here.  They are answers, not failures (service/errors.py lists those).
MOVE_ERROR_CODES: dict[str, str] = {
    "bad_notation": "the move cannot be read in the game's notation",
    "empty_move": "the move names nothing",
    "bad_step": "no legal move goes on with this step",
    "game_over": "the game is over",
    "not_to_move": "a record's `forfeit N` for a player who was not to move",
    "no_pass": "the move `pass`: no game here lets a player pass",
    "unknown_cell": "a cell that is not on this board",
    "blocked": "a blocked (black) cell",
    "occupied": "a cell already occupied",
    "duplicate_cell": "Catchup, Product: a cell named twice in one turn (R-C1, R-E4)",
    "too_many_stones": "more stones than the turn may place",
    "too_few_stones": "Product: fewer stones than the turn places (R-E4a)",
    "largest_group_grew": "Catchup bolanos: two stones that change the largest group's size (R-C3)",
    "would_merge": "Bug: a grow that touches two of the player's bugs (R-B3)",
    "too_large": "Bug: a grow past the largest bug on the board (R-B3)",
    "must_eat": "Bug: an eat is due and the move does not make it (R-B4, R-B8)",
    "no_eat_due": "Bug: a bonus cell where no eat is due (R-B4)",
    "bad_bonus": "Bug: a bonus cell the eat cannot grow onto (R-B4)",
    "too_many_cells": "Bug: more cells than the grow and its eats (R-B5)",
    "no_swap": "Plur: `swap` where the pie rule does not allow it (R-E1a)",
    "wrong_phase": "Crystal: a move of another phase (a draft word while shifting, ...)",
    "not_in_draft": "Crystal: a word the draft does not take now (R-X1)",
    "not_your_colour": "Crystal: a colour that is not the player's, or taken (R-X1, R-X5)",
    "wrong_colour_count": "Crystal: too few or too many colours in a pick (R-X1)",
    "bad_shift": "Crystal: a shift that cannot be read (file, direction, amount 1-5; R-X2)",
    "wrong_shift_count": "Crystal: not the number of shifts the turn makes (R-X2, shift-plus)",
    "file_barred": "Crystal: a file the opponent shifted on their last turn (R-X2)",
    "rock_over_edge": "Crystal: a shift that carries a rock over the edge (R-X5)",
    "no_convertor": "Crystal: `convert` without the color-convertor anomaly (R-X5)",
    "convert_not_first": "Crystal: `convert` after the first shift, or twice (R-X5)",
}
