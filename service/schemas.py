"""marshmallow schemas for every request and response body.

Requests are loaded (validated) here; game-specific content - options, states,
moves - is validated by the engine, which names the offending field.  Response
schemas document and dump what the views return.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate


class MoveField(fields.Field):
    """A move: notation text, or a list of strings (a structured form)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, str):
            if not value.strip():
                raise ValidationError("A move must not be empty.")
            if len(value) > 1000:
                raise ValidationError("A move is at most 1000 characters.")
            return value
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value) and len(value) <= 100:
            return value
        raise ValidationError("A move is a notation string, or a non-empty list of strings.")


class NewRequest(Schema):
    options = fields.Dict(keys=fields.String(), load_default=dict)


class PlayRequest(Schema):
    state = fields.Dict(keys=fields.String(), required=True)
    move = MoveField(required=True)


class LegalMovesRequest(Schema):
    state = fields.Dict(keys=fields.String(), required=True)
    limit = fields.Integer(load_default=None, allow_none=True, validate=validate.Range(min=1, max=100000))


class ReplayRequest(Schema):
    options = fields.Dict(keys=fields.String(), load_default=dict)
    moves = fields.List(MoveField(), required=True, validate=validate.Length(max=10000))


class ErrorBody(Schema):
    code = fields.String(required=True)
    message = fields.String(required=True)
    step = fields.Integer()
    field = fields.String()


class VerdictResponse(Schema):
    legal = fields.Boolean(required=True)
    move = fields.String()
    state = fields.Dict(required=True)
    events = fields.List(fields.Dict())
    error = fields.Nested(ErrorBody)


class StateResponse(Schema):
    state = fields.Dict(required=True)


class LegalMovesResponse(Schema):
    moves = fields.List(fields.String(), required=True)
    count = fields.Integer(required=True)
    truncated = fields.Boolean(required=True)


class ReplayResponse(Schema):
    valid = fields.Boolean(required=True)
    plies = fields.Integer(required=True)
    first_illegal = fields.Dict(allow_none=True)
    state = fields.Dict(required=True)


new_request = NewRequest()
play_request = PlayRequest()
legal_moves_request = LegalMovesRequest()
replay_request = ReplayRequest()
verdict_response = VerdictResponse()
state_response = StateResponse()
legal_moves_response = LegalMovesResponse()
replay_response = ReplayResponse()
