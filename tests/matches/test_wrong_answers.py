"""A lone surrogate (``"\\ud800"``, half of a character) in a match's ``players``,
``tags`` or a move was a 500 with a traceback (issue 20, item 4): now a 422
naming the field, as every other string the service cannot read."""

from __future__ import annotations

import json

from flask.testing import FlaskClient
from matchkit import NewMatch
from test_api_errors import error_of


def test_a_lone_surrogate_in_players_tags_or_a_move_is_a_422(client: FlaskClient, new_match: NewMatch) -> None:
    base = {"game": "catchup", "options": {"size": 3}}
    for extra, field in (({"players": ["Ann", "\ud800"]}, "players.1"), ({"tags": ["ok", "x\udfffy"]}, "tags.1")):
        body = json.dumps({**base, **extra})  # every non-ASCII character escaped: the six characters \ud800
        err = error_of(client.post("/v1/matches", data=body, content_type="application/json"), 422, "invalid_body")
        assert err["details"]["field"] == field
    match = new_match("catchup", {"size": 3})
    for move in ("\ud800", ["C3", "\ud800"]):
        body = json.dumps({"move": move, "ply": 0})
        resp = client.post(f"/v1/matches/{match.id}/moves", data=body, content_type="application/json", headers=match.auth(0))
        error_of(resp, 422, "invalid_body")
    assert match.move(0, "C3", 0).status_code == 200  # nothing was recorded: the match goes on at ply 0
