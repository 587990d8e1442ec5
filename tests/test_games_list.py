"""``GET /v1/games`` is made once per app and carries an ETag (issue 20, "Cost per request": the list
was rebuilt and dumped on every request, about half of what the request cost)."""

from __future__ import annotations

import json

from flask.testing import FlaskClient

from engine.registry import GAMES
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


def test_each_preset_says_which_variants_get_it(client: FlaskClient) -> None:
    """Issue 35 item 6: a page choosing Bug's green-meadow kept Bug's clock (GET /v1/games named one default
    per game, and the page guessed a variant's preset by its name); each preset now says which variants a
    match gets it with, from the game's own rule (``Game.default_preset``)."""
    listed = {g["name"]: g for g in client.get("/v1/games").get_json()["games"]}
    bug = listed["bug"]["presets"]
    assert bug["bug-green-meadow"]["default_with"] == {"variant": ["green-meadow"]}
    assert bug["bug"]["default_with"] == {"variant": ["genius"]}
    for name, game in GAMES.items():
        presets = listed[name]["presets"]
        said = {v: p for p, spec in presets.items() for v in spec.get("default_with", {}).get("variant", [])}
        assert said == game.variant_presets(), name
        assert set(said) == set(listed[name]["variants"]), name  # every variant of a game with variants
    # tests/matches/test_api.py: a match of each variant that names no clock gets the preset said here.
