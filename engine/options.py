"""Game options declared once, as data (OpenSpiel's ``parameter_specification``).

Each game lists its :class:`Option` s; from that one list come the game's
entry in ``GET /v1/games`` (:meth:`Option.describe`), the check that a
client names no unknown option (:meth:`engine.game.Game.check_options`), the
reading of the simple ones - integers in a range, a choice of words with
aliases, booleans, a player (:meth:`Option.read`) - and the option's JSON
Schema in ``openapi.yaml`` (:meth:`Option.json_schema`), so that the spec
cannot disagree with the engine.  Options whose value is a structure (a
set-up board, a grid) carry their JSON Schema explicitly and are read by the
game itself.

Schemas shared by several games (a board of cells, a list of cells) are
named in :data:`SHARED_SCHEMAS` and referred to by ``$ref``; the spec
generator (service/api/openapi.py) copies them into ``components.schemas``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import BadOptions, BadState
from engine.stateio import is_player

Json = dict[str, Any]
FieldErrorType = type[BadOptions] | type[BadState]

TYPES = ("integer", "string", "boolean", "player", "array", "object", "any")

CELL_PATTERN = "^[A-Za-z][0-9]{1,2}$"


def ref(name: str) -> Json:
    """A JSON Schema reference to one of the spec's named schemas."""
    return {"$ref": f"#/components/schemas/{name}"}


# Named schemas that options and states of several games share.
SHARED_SCHEMAS: dict[str, Json] = {
    "HexBoardCells": {
        "type": "object",
        "description": "Occupied cells only, keys in RULES notation (R-H3), values 0 or 1 (the player, or Too's colour).",
        "propertyNames": {"pattern": CELL_PATTERN},
        "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 1},
        "examples": [{"E5": 0, "D4": 1}],
    },
    "CellList": {
        "type": "array",
        "items": {"type": "string", "pattern": CELL_PATTERN},
        "uniqueItems": True,
    },
    "PlayerOrNull": {"type": ["integer", "null"], "minimum": 0, "maximum": 1, "description": "A player, 0 or 1, or null."},
}


@dataclass(frozen=True, slots=True)
class Option:
    """One option of a game: its name, JSON type, default and bounds.

    ``type`` is one of :data:`TYPES`: ``player`` is 0, 1 or null (who moves in
    a set-up position); ``array``/``object``/``any`` values are read by the game
    and described by ``schema``.  ``choices`` are the canonical words of a
    string option (or of an array's items), ``aliases`` other words that mean
    one of them.  ``rule`` names the ruling the option comes from, for its
    messages; ``setup`` marks options that set up a position; ``only_with``
    names the other options' values under which this one matters at all
    (Bug's ``size``: only with ``variant`` ``genius``), so a front end can
    leave it out otherwise."""

    name: str
    type: str
    default: Any = None
    description: str = ""
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()
    aliases: tuple[tuple[str, str], ...] = ()
    rule: str = ""
    setup: bool = False
    schema: Json | None = None
    only_with: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"option {self.name}: unknown type {self.type!r}")

    @property
    def alias_map(self) -> dict[str, str]:
        return dict(self.aliases)

    @property
    def words(self) -> tuple[str, ...]:
        """Every word a client may give: the choices, then the aliases."""
        return (*self.choices, *(a for a, _ in self.aliases))

    @property
    def in_query(self) -> bool:
        """The option can be written in a query string (``GET /v1/games/<game>/board?size=4``):
        a plain value, or the list of blocked cells (``blocked=A1,B2``)."""
        return self.type in ("integer", "string", "boolean") or self.name == "blocked"

    @property
    def json_default(self) -> Any:
        """The default as JSON has it (a tuple is a list)."""
        return list(self.default) if isinstance(self.default, tuple) else self.default

    def _rule(self) -> str:
        return f" ({self.rule})" if self.rule else ""

    # -- reading ------------------------------------------------------------------

    def read(self, raw: Any, field: str, err: FieldErrorType = BadOptions, *, strict: bool = False) -> Any:
        """``raw`` checked against this declaration; raises ``err(field, ...)``.

        A word is looked up without regard to case and through the aliases,
        and comes back canonical; ``strict`` (a state, which spells its
        options as dumped) takes only the canonical words."""
        if not strict and isinstance(raw, float) and raw.is_integer() and self.type in ("integer", "player"):
            raw = int(raw)  # 5.0 is the integer 5 to JSON Schema, so to the spec; a state (strict) spells it as dumped
        if self.type == "integer":
            if type(raw) is not int or (self.min is not None and raw < self.min) or (self.max is not None and raw > self.max):
                raise err(field, f"{self.name} must be an integer from {self.min} to {self.max}{self._rule()}.")
            return raw
        if self.type == "boolean":
            if not isinstance(raw, bool):
                raise err(field, f"{self.name} must be true or false.")
            return raw
        if self.type == "player":
            if raw is not None and not is_player(raw):
                raise err(field, f"{self.name} must be 0 or 1 (or null).")
            return raw
        if self.type == "string" and self.choices:
            if isinstance(raw, str):
                if strict:
                    if raw in self.choices:
                        return raw
                else:
                    word = raw.lower()
                    word = self.alias_map.get(word, word)
                    if word in self.choices:
                        return word
            allowed = self.choices if strict else self.words
            raise err(field, f"{self.name} must be one of {', '.join(allowed)}, not {raw!r}{self._rule()}.")
        return raw

    # -- describing ---------------------------------------------------------------

    def describe(self) -> Json:
        """This option in ``GET /v1/games``: type, default, bounds, choices."""
        out: Json = {"type": self.type, "default": self.json_default}
        if self.min is not None:
            out["min"] = self.min
        if self.max is not None:
            out["max"] = self.max
        if self.choices:
            out["choices"] = list(self.choices)
        if self.aliases:
            out["aliases"] = self.alias_map
        if self.description:
            out["description"] = self.description + self._rule()
        if self.setup:
            out["setup"] = True  # a front end offers it with a position, not among the game's choices
        if self.only_with:
            out["only_with"] = {name: list(values) for name, values in self.only_with}
        return out

    def json_schema(self) -> Json:
        """The JSON Schema of the value a client may send (openapi.yaml)."""
        out: Json
        if self.schema is not None:
            out = dict(self.schema)
        elif self.type == "integer":
            out = {"type": "integer"}
            if self.min is not None:
                out["minimum"] = self.min
            if self.max is not None:
                out["maximum"] = self.max
        elif self.type == "boolean":
            out = {"type": "boolean"}
        elif self.type == "player":
            out = ref("PlayerOrNull")
        elif self.type == "string" and self.choices:
            out = {"type": "string", "enum": list(self.words)}
        else:
            out = {"type": self.type} if self.type != "any" else {}
        if self.default is not None and "$ref" not in out:
            out["default"] = self.json_default
        if self.default is None:
            out = _nullable(out)  # null is the default, so a client may send it: the same as leaving the option out
        text = self.description + (f" ({self.rule})" if self.rule and self.rule not in self.description else "")
        if self.aliases:
            text += "; " + ", ".join(f"`{a}` means `{c}`" for a, c in self.aliases)
        if text:
            out["description"] = text[0].upper() + text[1:] + ("" if text.endswith(".") else ".")
        return out


def _nullable(schema: Json) -> Json:
    """``schema`` or ``null``."""
    if schema.get("$ref") == ref("PlayerOrNull")["$ref"]:
        return schema
    if "oneOf" in schema:
        return {**schema, "oneOf": [*schema["oneOf"], {"type": "null"}]}
    if schema.get("type") == "integer":
        return {**schema, "type": ["integer", "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def check_names(options: Any, declared: tuple[Option, ...], title: str) -> Mapping[str, Any]:
    """``options`` is an object naming only ``declared`` options."""
    if not isinstance(options, Mapping):
        raise BadOptions("options", "options must be an object.")
    names = [o.name for o in declared]
    for key in options:
        if key not in names:
            raise BadOptions(f"options.{key}", f"{title} has no option '{key}'; its options are {', '.join(names)}.")
    return options


# -- options that every game played on a hex board shares (R-H1..R-H4) -------------


def position(piece: str) -> Option:
    """``position``: a set-up board, ``{cell: 0|1}``."""
    return Option(
        "position", "object", None, f"set-up board: each occupied cell and the player whose {piece} is on it",
        setup=True, schema=ref("HexBoardCells"),
    )  # fmt: skip


BLOCKED = Option("blocked", "array", (), "cells removed from the board", setup=True, schema=ref("CellList"))
TO_MOVE = Option("to_move", "player", None, "the player to move in a set-up position (default: from the counts)", setup=True)
