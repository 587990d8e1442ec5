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


# The codes of an illegal move (a verdict's ``error.code``) that any game may
# give, with when.  Each game declares its own beside its rules
# (``Game.move_codes``); engine/registry.py ``MOVE_CODES`` joins them, the
# spec's table is generated from that, and a test finds every code the engine
# raises there.  They are answers, not failures (service/web/errors.py lists those).
MOVE_ERROR_CODES: dict[str, str] = {
    "bad_notation": "the move cannot be read in the game's notation",
    "empty_move": "the move names nothing",
    "bad_step": "no legal move goes on with this step",
    "game_over": "the game is over",
    "not_to_move": "a record's `forfeit N` for a player who was not to move",
    "nothing_to_take_back": "a record's `takeback` that does not follow a move (the start, a take-back, an end)",
    "no_pass": "the move `pass`: no game here lets a player pass",
    "unknown_cell": "a cell that is not on this board",
    "blocked": "a blocked (black) cell",
    "occupied": "a cell already occupied",
    "too_many_stones": "more stones than the turn may place",
}
