"""marshmallow schemas for every request and response body.

Requests are loaded (validated) here: the envelope - which keys, which types,
how many moves.  What is inside a game's options, state or move is the
engine's to judge, field by field (BadOptions, BadState naming the field), so
no rule lives here.  Response schemas dump what the views return, in the order
API.md lists the keys; ``openapi.yaml`` describes the same bodies in full and
the tests check every answer against it.

Schema instances are made once, at module level (marshmallow's Flask example).
"""

from __future__ import annotations

import re
from typing import Any

from marshmallow import Schema, ValidationError, fields, missing, validate

from engine.stateio import MAX_PLY

# A move has a character that is not white space, white space as JSON Schema's
# (ECMA-262's) \s has it: Python's str.isspace() also counts \x1c-\x1f and \x85,
# so a move of those would be schema-valid yet refused.  openapi.yaml's Move
# pattern is this one (tests/test_openapi.py).
NOT_BLANK = "[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]"
_NOT_BLANK = re.compile(NOT_BLANK)
# The players' names in a query string: two, separated by a comma, each 1 to 60
# characters and not blank (``names=Ann,Bob``).
NAMES_QUERY = f"^(?=[^,]*{NOT_BLANK})[^,]{{1,60}},(?=[^,]*{NOT_BLANK})[^,]{{1,60}}$"
NAMES_QUERY_RE = re.compile(NAMES_QUERY)
MAX_MOVE_CHARS = 1000


def not_blank(value: str) -> None:
    """A marshmallow validator: ``value`` has a character that is not white space."""
    if not _NOT_BLANK.search(value):
        raise ValidationError("Must not be empty or only white space.")


MAX_MOVE_STEPS = 100
MAX_MOVES = 10000


class MoveField(fields.Field[str | list[str]]):
    """A move: notation text (``"D7 F8"``), or its steps as a list of strings."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str | list[str]:
        if isinstance(value, str):
            if not _NOT_BLANK.search(value):
                raise ValidationError("A move must not be empty or only white space.")
            if len(value) > MAX_MOVE_CHARS:
                raise ValidationError(f"A move is at most {MAX_MOVE_CHARS} characters.")
            return value
        if isinstance(value, list) and value and len(value) <= MAX_MOVE_STEPS and all(isinstance(v, str) for v in value):
            return value
        raise ValidationError(f"A move is a notation string, or a list of 1 to {MAX_MOVE_STEPS} strings.")


class WholeNumber(fields.Integer):
    """A JSON integer; ``3.0`` too, read as ``3`` (JSON Schema's ``integer`` counts it
    as one, so the spec allows it), but never ``true``, ``"3"`` or ``3.5``."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if type(value) is not int:
            raise ValidationError("Not a valid integer.")
        return value


class StrictBoolean(fields.Boolean):
    """A JSON ``true`` or ``false``, nothing else (not ``1``, not ``"true"``)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if type(value) is not bool:
            raise ValidationError("Not a boolean: write true or false.")
        return value


# What a list of complete moves holds when no ``limit`` is given: Crystal's turns run to millions.
COMPLETE_LIMIT = 1000


def _object(**kwargs: Any) -> fields.Dict:
    """A JSON object; its content is the engine's to check.  Its keys are strings already (JSON's are, and so are
    the engine's), so they are not passed one by one through a String field: that was about a fifth of a play's
    schema work (issue 20, cost per request)."""
    return fields.Dict(**kwargs)


# -- requests ------------------------------------------------------------------


class NewRequest(Schema):
    options = _object(load_default=dict)


class PlayRequest(Schema):
    state = _object(required=True)
    move = MoveField(required=True)


class LegalMovesRequest(Schema):
    state = _object(required=True)
    limit = WholeNumber(load_default=None, allow_none=True, validate=validate.Range(min=1, max=100000))
    # A move begun step by step (Game.next_steps): with it, the answer is the steps that may follow.
    prefix = fields.List(
        fields.String(validate=validate.Length(max=MAX_MOVE_CHARS)),
        load_default=None,
        allow_none=True,
        validate=validate.Length(max=MAX_MOVE_STEPS),
    )
    # Whole moves (Game.complete_moves) instead of the game's plain list; a prefix asks for steps instead.
    complete = StrictBoolean(load_default=False)


MAX_RECORD_CHARS = 200_000


class ImportRequest(Schema):
    """``POST /v1/games/{game}/import``: another site's game record."""

    text = fields.String(required=True, validate=validate.Length(min=1, max=MAX_RECORD_CHARS))
    format = fields.String(required=True, validate=validate.Length(min=1, max=40))
    # a text diagram's (format "diagram"): whose turn, and the game's other options
    to_move = fields.Integer(load_default=None, allow_none=True, strict=True, validate=validate.OneOf((0, 1)))
    options = _object(load_default=dict)


class ReplayRequest(Schema):
    options = _object(load_default=dict)
    moves = fields.List(MoveField(), required=True, validate=validate.Length(max=MAX_MOVES))


BOTS = ("random", "greedy", "mcts", "strong")  # the built-in bots (umpire/bots/ BUILTIN); a test checks they agree


class Seconds(fields.Float):
    """A JSON number of seconds: never ``true`` or ``"0.5"``."""

    def deserialize(self, value: Any, attr: str | None = None, data: Any = None, **kwargs: Any) -> Any:
        """Float's own checks through its public method, after refusing what JSON gave as another type."""
        if value is not missing and value is not None and type(value) not in (int, float):
            raise ValidationError("Not a valid number.")
        return super().deserialize(value, attr, data, **kwargs)


class SuggestRequest(Schema):
    """``POST /v1/games/{game}/suggest``: a built-in bot's move for a state
    (service/api/suggest.py); the budget's upper bound is the server's
    ``SUGGEST_MAX_BUDGET_S``, checked there."""

    state = _object(required=True)
    bot = fields.String(required=True, validate=validate.OneOf(BOTS))
    budget_s = Seconds(load_default=None, allow_none=True, validate=validate.Range(min=0, max=60, min_inclusive=False))


PALETTES = ("default", "colorblind", "print")  # views.PALETTES; a test checks they agree
POST_FORMATS = ("markdown", "discord", "bbcode", "text")  # views.posts.FORMATS; a test checks they agree
FORMATS = ("svg", "png", "text")
MIN_WIDTH, MAX_WIDTH = 16, 2048  # PNG pixels: views.raster takes up to 8192, 8 s of CPU (issue 20); the service, 2048


class Drawing(Schema):
    """How to draw a position (views.svg/png/text): palette, each cell's name,
    the players' names, the PNG's width; what led to it (``events``, or
    ``before`` and ``move``, from which the service works them out); a
    managed match's ``clock``."""

    palette = fields.String(load_default="default", validate=validate.OneOf(PALETTES))
    coords = fields.Boolean(load_default=False)
    # Left out, each is None; sent as null, it is refused, as the spec has no null for it.
    names = fields.List(
        fields.String(validate=[validate.Length(min=1, max=60), not_blank]),
        load_default=None,
        allow_none=False,
        validate=validate.Length(equal=2),
    )
    events = fields.List(_object(), load_default=None, allow_none=False, validate=validate.Length(max=MAX_MOVE_STEPS))
    before = _object(load_default=None, allow_none=False)
    move = MoveField(load_default=None, allow_none=False)
    clock = _object(load_default=None, allow_none=False)


class RenderRequest(Drawing):
    state = _object(required=True)
    format = fields.String(load_default="svg", validate=validate.OneOf(FORMATS))
    width = WholeNumber(load_default=None, allow_none=False, validate=validate.Range(min=MIN_WIDTH, max=MAX_WIDTH))


class PostRequest(Drawing):
    state = _object(required=True)
    png_url = fields.Url(load_default=None, allow_none=False, schemes={"http", "https"})
    ply = WholeNumber(load_default=None, allow_none=False, validate=validate.Range(min=0))
    format = fields.String(load_default="markdown", validate=validate.OneOf(POST_FORMATS))  # views/posts.py


class ClockField(fields.Field[Any]):
    """A clock: a preset name or an object (the engine's clock reader checks the content)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if value is None or isinstance(value, str | dict):
            return value
        raise ValidationError("A clock is a preset name or an object.")


# A name, a tag or an umpire's reason holds no control character: none of C0, DEL, C1 (\x85 is a line break to
# str.splitlines) and no line or paragraph separator (U+2028, U+2029), which would split a line of the record's text
# ("[Seat1 \"Bob\u2028[Result...") or a post.  openapi.yaml's Name and reasons have this pattern (tests/test_openapi.py).
NO_CONTROL = "[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029]"
NAME = validate.Regexp(
    f"^{NO_CONTROL}{{1,64}}$", error="A name or tag is 1 to 64 characters, none of them control characters or line breaks."
)


WEBHOOK_FORMATS = ("discord", "slack", "json")  # service/matches/outbox.py: what is posted to each
MAX_WEBHOOKS = 3
MAX_WEBHOOK_URL = 1000  # the body's limit for any string (service/web/http.py)


class WebhookSchema(Schema):
    """One webhook of a match: where to post each change, and in which format.  Whether
    the server may post there (``WEBHOOK_ALLOW``) is service/matches/outbox.py's to judge."""

    url = fields.String(required=True, validate=validate.Length(min=1, max=MAX_WEBHOOK_URL))
    format = fields.String(required=True, validate=validate.OneOf(WEBHOOK_FORMATS))


class MatchCreateRequest(Schema):
    game = fields.String(required=True, validate=validate.Length(min=1, max=50))
    options = _object(load_default=dict)
    clock = ClockField(load_default=None, allow_none=True)
    players = fields.List(
        fields.String(allow_none=True, validate=NAME), load_default=None, allow_none=True, validate=validate.Length(equal=2)
    )  # each seat's name, seat 0 first: the record's headers and the announcements use them
    tags = fields.List(fields.String(validate=NAME), load_default=list, validate=validate.Length(max=16))
    illegal = fields.String(load_default="reject", validate=validate.OneOf(("reject", "forfeit")))  # what an illegal move does
    # where the service posts each change by itself (service/matches/outbox.py); checked against WEBHOOK_ALLOW
    webhooks = fields.List(fields.Nested(WebhookSchema), load_default=list, validate=validate.Length(max=MAX_WEBHOOKS))


class ExportRequest(Schema):
    """``POST /v1/games/{game}/export``: a game as ``replay`` takes it, to write in another site's format."""

    format = fields.String(required=True, validate=validate.Length(min=1, max=40))
    options = _object(load_default=dict)
    moves = fields.List(MoveField(), required=True, validate=validate.Length(max=MAX_MOVES))
    players = fields.List(fields.String(validate=NAME), load_default=None, allow_none=True, validate=validate.Length(equal=2))


REASON_MOST = 500  # characters of an umpire's reason (a pause's, an adjudication's); the Discord commands' bound too
REASON = validate.Regexp(
    f"^{NO_CONTROL}{{1,{REASON_MOST}}}$",
    error=f"A reason is 1 to {REASON_MOST} characters, none of them control characters or line breaks.",
)


class AddTimeRequest(Schema):
    """``POST /v1/matches/{id}/add-time``: the umpire gives ``seat`` ``seconds`` (kept to the millisecond)."""

    seat = WholeNumber(required=True, validate=validate.OneOf((0, 1)))
    seconds = Seconds(required=True, validate=validate.Range(min=0.001, max=3600))


class AdjudicateRequest(Schema):
    """``POST /v1/matches/{id}/adjudicate``: the umpire's decision, ``winner`` 0, 1 or null (a draw), and why."""

    winner = WholeNumber(required=True, allow_none=True, validate=validate.OneOf((0, 1)))
    reason = fields.String(required=True, validate=REASON)


class PauseRequest(Schema):
    """``POST /v1/matches/{id}/pause``: the body may be left out; ``reason``, why the umpire pauses (issue 35)."""

    reason = fields.String(validate=REASON)


class TakebackRequest(Schema):
    """``POST /v1/matches/{id}/takeback``: the body may be left out; ``ply``, the match's ply as the umpire
    saw it (a take-back of another position is refused, and a retry at it answers the first take-back)."""

    ply = WholeNumber(validate=validate.Range(min=0, max=MAX_PLY))


class MatchMoveRequest(Schema):
    move = MoveField(required=True)
    ply = WholeNumber(required=True, validate=validate.Range(min=0, max=MAX_PLY))
    # an opening move from a book (a harness's), marked so in the record; true or false, nothing truthy
    book = fields.Boolean(truthy={True}, falsy={False})


def plain_move(data: Any) -> dict[str, Any] | None:
    """``data`` as ``match_move_request`` loads it when it is the plain body every
    client sends (``{"move": "<text>", "ply": n}``), else None: then the schema
    judges, and names what is wrong.  The hot path of a move, so a few
    comparisons instead of a schema; it accepts only bodies the schema accepts."""
    if type(data) is dict and len(data) == 2:
        move, ply = data.get("move"), data.get("ply")
        if (
            type(ply) is int
            and 0 <= ply <= MAX_PLY
            and type(move) is str
            and len(move) <= MAX_MOVE_CHARS
            and _NOT_BLANK.search(move) is not None
        ):
            return {"move": move, "ply": ply}
    return None


def plain_play(data: dict[str, Any]) -> dict[str, Any] | None:
    """``data`` as ``play_request`` loads it when it is the plain body of a stateless play (``{"state": {...},
    "move": "<text>"}``), else None: then the schema judges, and names what is wrong.  Every ``play`` is such a
    body, and the schema's ``load`` of it cost about a tenth of the view's own work (issue 33: ``bench
    instructions``), so a few comparisons instead, as :func:`plain_move` does for a managed move; it accepts
    only bodies the schema accepts (tests/test_plain_bodies.py)."""
    if len(data) == 2:
        state, move = data.get("state"), data.get("move")
        if type(state) is dict and type(move) is str and len(move) <= MAX_MOVE_CHARS and _NOT_BLANK.search(move) is not None:
            return {"state": state, "move": move}
    return None


# -- responses -----------------------------------------------------------------


def verdict_json(
    legal: bool,
    state: dict[str, Any],
    *,
    move: str | None = None,
    error: dict[str, Any] | None = None,
    events: Any = (),
    announcements: list[str] | None = None,
) -> dict[str, Any]:
    """The one verdict shape, stateless or in a match (API.md): ``legal``, then
    ``move`` (legal) or ``error`` (illegal: code, message, step), the state
    (unchanged when illegal, except a match's forfeit), the events of the move
    (none when illegal), and the umpire's announcements when made.  A match's
    answer adds the match's own fields after these."""
    out: dict[str, Any] = {"legal": legal}
    if legal:
        out["move"] = move
    else:
        out["error"] = error
    out["state"] = state
    out["events"] = list(events)
    if announcements is not None:
        out["announcements"] = announcements
    return out


class MoveErrorBody(Schema):
    """Why a move is illegal: a stable code, one sentence, the first wrong step,
    the ruling broken (RULES.md ``R-..``)."""

    code = fields.String(required=True)
    message = fields.String(required=True)
    step = fields.Integer()
    rule = fields.String()


class VerdictResponse(Schema):
    """``{"legal": true, "move", "state", "events"}`` or ``{"legal": false, "error", "state"}``."""

    legal = fields.Boolean(required=True)
    move = fields.String()
    error = fields.Nested(MoveErrorBody)
    state = _object(required=True)
    events = fields.List(_object())
    announcements = fields.List(fields.String())


class StateResponse(Schema):
    state = _object(required=True)


class LegalMovesResponse(Schema):
    """The moves; a game's own remarks (Catchup ``max_stones``...) are added after."""

    moves = fields.List(fields.String(), required=True)
    count = fields.Integer(required=True)
    truncated = fields.Boolean(required=True)
    complete = fields.Boolean(required=True)


class StepsResponse(Schema):
    """``legal-moves`` with a ``prefix``: the steps that may follow it (Game.next_steps)."""

    prefix = fields.List(fields.String(), required=True)
    steps = fields.List(fields.String(), required=True)
    count = fields.Integer(required=True)
    complete = fields.Boolean(required=True)
    move = fields.String(allow_none=True, required=True)
    error = fields.Nested(MoveErrorBody)
    preview = _object()  # the board as the steps so far leave it (Game.preview), where they change it


class FirstIllegal(Schema):
    index = fields.Integer(required=True)
    error = fields.Nested(MoveErrorBody, required=True)


class ReplayResponse(Schema):
    valid = fields.Boolean(required=True)
    plies = fields.Integer(required=True)
    first_illegal = fields.Nested(FirstIllegal, allow_none=True, required=True)
    state = _object(required=True)
    move = fields.String(allow_none=True, required=True)
    announcements = fields.List(fields.String(), required=True)


class SuggestResponse(Schema):
    move = fields.String(required=True)
    bot = fields.String(required=True)
    spent_s = fields.Float(required=True)


class GamesResponse(Schema):
    """Each game's ``describe()``: name, title, variants, options with defaults."""

    games = fields.List(_object(), required=True)
    not_built = fields.List(_object(), required=True)  # R-E3: games the seeds name but do not describe fully


class HealthResponse(Schema):
    """``GET /v1/health`` (service/matches/health.py)."""

    status = fields.String(required=True)
    redis = fields.String()


class ErrorBody(Schema):
    code = fields.String(required=True)
    message = fields.String(required=True)
    details = fields.Raw(required=True, allow_none=True)


class ErrorResponse(Schema):
    """The one error shape (API.md "Errors")."""

    error = fields.Nested(ErrorBody, required=True)


new_request = NewRequest()
match_create_request = MatchCreateRequest()
match_move_request = MatchMoveRequest()
add_time_request = AddTimeRequest()
adjudicate_request = AdjudicateRequest()
pause_request = PauseRequest()
takeback_request = TakebackRequest()
play_request = PlayRequest()
legal_moves_request = LegalMovesRequest()
render_request = RenderRequest()
post_request = PostRequest()
steps_response = StepsResponse()
replay_request = ReplayRequest()
import_request = ImportRequest()
export_request = ExportRequest()
suggest_request = SuggestRequest()
suggest_response = SuggestResponse()
verdict_response = VerdictResponse()
state_response = StateResponse()
legal_moves_response = LegalMovesResponse()
replay_response = ReplayResponse()
games_response = GamesResponse()
health_response = HealthResponse()
error_response = ErrorResponse()
