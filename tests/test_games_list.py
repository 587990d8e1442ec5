"""``GET /v1/games`` is made once per app and carries an ETag (issue 20, "Cost per request": the list
was rebuilt and dumped on every request, about half of what the request cost)."""

from __future__ import annotations

import json

from flask.testing import FlaskClient

from service import create_app
from service.api.games import describe_games


def test_the_kept_answer_is_a_fresh_description_of_every_game(client: FlaskClient) -> None:
    first = client.get("/v1/games")
    again = client.get("/v1/games")
    assert first.status_code == again.status_code == 200
    assert first.mimetype == "application/json"
    with client.application.app_context():
        fresh = describe_games()
    assert first.get_json() == again.get_json() == json.loads(json.dumps(fresh))
    assert first.data == again.data
    assert [g["name"] for g in first.get_json()["games"]]  # not an empty list


def test_an_etag_and_304_for_a_client_that_has_the_answer(client: FlaskClient) -> None:
    first = client.get("/v1/games")
    etag = first.headers["ETag"]
    assert etag.startswith('"') and len(etag) > 10
    same = client.get("/v1/games", headers={"If-None-Match": etag})
    assert same.status_code == 304 and same.data == b""
    assert same.headers["ETag"] == etag
    assert same.headers["X-Request-ID"]  # the hooks every answer passes still ran
    other = client.get("/v1/games", headers={"If-None-Match": '"not-this-one"'})
    assert other.status_code == 200 and other.data == first.data
    # Another app of the same code (another worker) gives the same ETag, so a client's copy holds across workers.
    assert create_app().test_client().get("/v1/games").headers["ETag"] == etag
