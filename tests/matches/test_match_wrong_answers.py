"""A lone surrogate (``"\\ud800"``, half of a character) in a match's ``players``,
``tags`` or a move was a 500 with a traceback (issue 20, item 4): now a 422
naming the field, as every other string the service cannot read."""

from __future__ import annotations

import json

import pytest
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


@pytest.mark.app_config(CREATE_RATE_LIMIT="2/minute")
def test_creating_matches_has_a_budget_per_address(client: FlaskClient) -> None:
    """Issue 20, item 8: anyone could create matches without bound (each is kept a month);
    now a budget per address, on by default (CREATE_RATE_LIMIT)."""
    body = {"game": "catchup", "options": {"size": 3}}
    assert [client.post("/v1/matches", json=body).status_code for _ in range(2)] == [201, 201]
    err = error_of(client.post("/v1/matches", json=body), 429, "rate_limited")
    assert "2 per 1 minute" in err["details"]["limit"]
    assert client.get("/v1/games").status_code == 200  # other routes are not on this budget


@pytest.mark.app_config(CREATE_RATE_LIMIT="2/minute", UMPIRE_TOKEN="ump")
def test_the_umpire_token_creates_at_its_own_pace(client: FlaskClient) -> None:
    body = {"game": "catchup", "options": {"size": 3}}
    umpire = {"Authorization": "Bearer ump"}
    assert [client.post("/v1/matches", json=body, headers=umpire).status_code for _ in range(3)] == [201, 201, 201]


@pytest.mark.app_config(EVENTS_LIFETIME_S="1")
def test_a_wrong_last_event_id_query_is_422_with_or_without_the_header(client: FlaskClient, new_match: NewMatch) -> None:
    """schemathesis (ST201, --seed 4242): the query was ignored when the header came too, and
    refused without it; the same request must get the same answer (issue 20, the contract)."""
    match = new_match("catchup", {"size": 3})
    url = f"/v1/matches/{match.id}/events?last_event_id=x1"
    for headers in ({}, {"Last-Event-ID": "0"}):
        err = error_of(client.get(url, headers=headers), 422, "invalid_query")
        assert err["details"] == {"parameter": "last_event_id"}
    err = error_of(client.get(f"/v1/matches/{match.id}/events", headers={"Last-Event-ID": "x"}), 422, "invalid_header")
    resp = client.get(f"/v1/matches/{match.id}/events?last_event_id=0", headers={"Last-Event-ID": "0"})
    assert resp.status_code == 200 and resp.mimetype == "text/event-stream"
    resp.close()
