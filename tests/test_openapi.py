"""openapi.yaml is the contract: valid OpenAPI 3.1, the same paths as the app,
examples that match their own schemas, and answers that match it.

Every answer of every test that uses the ``client`` fixture is validated
against the spec as it arrives (tests/conftest.py); the tests here check the
spec itself, the checker's power to fail, and that each documented answer of
the stateless endpoints is actually produced and checked.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from openapi_check import METHODS, SPEC_FILE, SpecChecker, escape, flask_rule_to_template
from openapi_spec_validator import validate as validate_spec

from engine.registry import GAMES
from service import openapi

JSON = "application/json"


def test_spec_is_valid_openapi_3_1(spec: dict[str, Any]) -> None:
    assert spec["openapi"].startswith("3.1")
    validate_spec(spec)  # raises on any violation of the OpenAPI 3.1 schema


def app_operations(app: Flask) -> set[tuple[str, str]]:
    out = set()
    for rule in app.url_map.iter_rules():
        for method in rule.methods or ():
            if method not in ("HEAD", "OPTIONS"):
                out.add((flask_rule_to_template(rule.rule), method))
    return out


def spec_operations(spec: dict[str, Any]) -> set[tuple[str, str]]:
    return {(path, m.upper()) for path, item in spec["paths"].items() for m in METHODS if m in item}


def test_app_routes_equal_spec_paths(app: Flask, spec: dict[str, Any]) -> None:
    routes = app_operations(app)
    documented = spec_operations(spec)
    assert routes - documented == set(), "routes the spec does not describe"
    assert documented - routes == set(), "spec paths the app does not serve"


def test_flask_rules_become_openapi_templates() -> None:
    assert flask_rule_to_template("/v1/games/<game>/new") == "/v1/games/{game}/new"
    assert flask_rule_to_template("/v1/matches/<string:match_id>/moves") == "/v1/matches/{match_id}/moves"
    assert flask_rule_to_template("/v1/games") == "/v1/games"


def _examples(media: dict[str, Any]) -> list[tuple[str, Any]]:
    out = []
    if "example" in media:
        out.append(("example", media["example"]))
    for name, ex in media.get("examples", {}).items():
        out.append((name, ex["value"]))
    return out


def test_every_example_matches_its_schema(spec: dict[str, Any], spec_checker: SpecChecker) -> None:
    """Examples are documentation; a wrong one misleads, so each is validated."""
    seen = 0
    for path, item in spec["paths"].items():
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            base = f"/paths/{escape(path)}/{method}"
            where = []
            if "requestBody" in op:
                where.append(f"{base}/requestBody")
            where += [f"{base}/responses/{escape(str(status))}" for status in op["responses"]]
            for pointer in where:
                ptr, node = spec_checker.resolve(pointer)
                media = node.get("content", {}).get(JSON)
                if media is None:
                    continue
                for name, value in _examples(media):
                    problems = spec_checker.validate(f"{ptr}/content/application~1json/schema", value)
                    assert not problems, f"{pointer} example {name!r}: {problems}"
                    seen += 1
    for name, schema in spec["components"]["schemas"].items():
        for i, value in enumerate(schema.get("examples", [])):
            problems = spec_checker.validate(f"/components/schemas/{escape(name)}", value)
            assert not problems, f"components/schemas/{name} example {i}: {problems}"
            seen += 1
    assert seen >= 20


# -- the checker can fail --------------------------------------------------------


def _new_state(client: FlaskClient) -> dict[str, Any]:
    state: dict[str, Any] = client.post("/v1/games/catchup/new", json={"options": {"size": 3}}).get_json()["state"]
    return state


def test_checker_rejects_an_answer_that_breaks_the_spec(client: FlaskClient, spec_checker: SpecChecker) -> None:
    state = _new_state(client)
    good = {"state": state}
    spec_checker.check("POST", "/v1/games/catchup/new", 200, JSON, good)
    for broken in (
        {"state": {k: v for k, v in state.items() if k != "board"}},  # a required field gone
        {"state": {**state, "to_move": 2}},  # no such player
        {"state": {**state, "game": "chess"}},  # no such game: matches no state schema
        {"state": state, "extra": 1},  # not in the answer's schema
    ):
        with pytest.raises(AssertionError, match="does not match"):
            spec_checker.check("POST", "/v1/games/catchup/new", 200, JSON, broken)
    with pytest.raises(AssertionError, match="not documented"):
        spec_checker.check("POST", "/v1/games/catchup/new", 201, JSON, good)
    with pytest.raises(AssertionError, match="content type"):
        spec_checker.check("POST", "/v1/games/catchup/new", 200, "text/html", good)
    with pytest.raises(AssertionError, match="error shape"):
        spec_checker.check("GET", "/nowhere", 404, JSON, {"message": "not found"})


def test_legal_verdict_needs_the_move_and_an_illegal_one_the_error(spec_checker: SpecChecker, client: FlaskClient) -> None:
    state = _new_state(client)
    path = "/v1/games/catchup/play"
    said = {"announcements": ["Red places C3."]}
    spec_checker.check("POST", path, 200, JSON, {"legal": True, "move": "C3", "state": state, "events": [], **said})
    error = {"code": "occupied", "message": "m", "step": 1, "rule": "R-C1"}
    illegal = {"legal": False, "error": error, "state": state, "events": [], "announcements": []}
    spec_checker.check("POST", path, 200, JSON, illegal)
    for broken in (
        {**illegal, "events": [{}]},  # an illegal move has no events
        {**illegal, "announcements": ["Red places C3."]},  # ... and nothing to announce
        {**illegal, "error": {**error, "message": "C3 is already occupied (R-C1)."}},  # the ruling is `rule`, not in the sentence
        {**illegal, "error": {**error, "rule": "C1"}},
        {"legal": True, "state": state, "events": [], **said},
        {"legal": True, "move": "C3", "state": state, "events": []},  # no announcements
        {"legal": False, "state": state},
    ):
        with pytest.raises(AssertionError):
            spec_checker.check("POST", path, 200, JSON, broken)


# -- every documented answer of the stateless paths is produced and checked ----


OPENINGS: list[tuple[str, dict[str, Any]]] = [
    ("catchup", {}),
    ("catchup", {"variant": "mindsports", "size": 3}),
    ("bug", {}),
    ("bug", {"variant": "green-meadow"}),
    ("crystal", {"seed": "spec"}),
    ("crystal", {"seed": "spec", "colors": [["red", "green"], ["blue", "yellow"]], "first": 1}),
    ("crystal", {"seed": 7, "anomalies": ["bombs", "pylons"], "colors": [["red", "blue"], ["green", "yellow"]], "first": 0}),
    ("plur", {"size": 3, "pie": True}),
    ("too", {"size": 2}),
]


@pytest.mark.parametrize(("name", "options"), OPENINGS)
def test_every_game_answers_in_its_documented_state_schema(client: FlaskClient, name: str, options: dict[str, Any]) -> None:
    """A few plies of each game through the checked client: every state, verdict,
    listing and replay must match the game's own schemas in the spec."""
    listing = client.get("/v1/games").get_json()["games"]
    assert {g["name"] for g in listing} == set(GAMES)
    state = client.post(f"/v1/games/{name}/new", json={"options": options}).get_json()["state"]
    assert state["game"] == name
    record = []
    for _ in range(8):
        moves = client.post(f"/v1/games/{name}/legal-moves", json={"state": state, "limit": 50}).get_json()
        assert moves["count"] == len(moves["moves"]) > 0
        move = moves["moves"][-1]
        if name == "crystal" and state["phase"] == "shift":
            move = ", ".join([move] * state["shifts_due"])  # the same shift repeated is a whole turn (R-X2)
        verdict = client.post(f"/v1/games/{name}/play", json={"state": state, "move": move}).get_json()
        assert verdict["legal"] is True, verdict
        record.append(verdict["move"])
        state = verdict["state"]
        if state["status"] == "finished":
            break
    replay = client.post(f"/v1/games/{name}/replay", json={"options": options, "moves": record}).get_json()
    assert replay["valid"] is True and replay["plies"] == len(record)
    if name != "crystal" or "seed" in options:  # a seedless Crystal deals a fresh grid
        assert replay["state"] == state


def test_each_documented_stateless_answer_is_produced(client: FlaskClient, spec_checker: SpecChecker, monkeypatch: Any) -> None:
    state = _new_state(client)
    bodies = {
        "new": {"options": {"size": 3}},
        "play": {"state": state, "move": "C3"},
        "legal-moves": {"state": state},
        "replay": {"options": {"size": 3}, "moves": ["C3"]},
        "render": {"state": state, "format": "svg"},
        "post": {"state": state},
    }
    for what, body in bodies.items():
        path = f"/v1/games/catchup/{what}"
        assert client.post(path, json=body).status_code == 200
        assert client.post(path, data="{", content_type=JSON).status_code == 400
        assert client.post(f"/v1/games/chess/{what}", json=body).status_code == 404
        assert client.get(path).status_code == 405
        assert client.post(path, data=b" " * (300 * 1024), content_type=JSON).status_code == 413
        assert client.post(path, data="{}", content_type="text/plain").status_code == 415
        assert client.post(path, json={"nonsense": 1}).status_code == 422
    assert client.get("/v1/games").status_code == 200
    assert client.post("/v1/games").status_code == 405
    assert client.get("/v1/games/catchup/board?size=4").status_code == 200
    assert client.get("/v1/games/chess/board").status_code == 404
    assert client.get("/v1/games/catchup/board?size=99").status_code == 422
    assert client.post("/v1/games/catchup/board").status_code == 405

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    for name in GAMES.values():
        for method in ("describe", "new", "load", "replay"):
            monkeypatch.setattr(name, method, fail)
    assert client.get("/v1/games").status_code == 500
    for what, body in bodies.items():
        assert client.post(f"/v1/games/catchup/{what}", json=body).status_code == 500
    assert client.get("/v1/games/catchup/board").status_code == 500

    stateless = {(p, m, s) for p, m, s in spec_checker.documented() if p.startswith("/v1/games")}
    assert stateless - spec_checker.checked == set()


def test_health_names_what_is_down(client: FlaskClient) -> None:
    """The root app's Redis cannot be reached (tests/conftest.py): 503, naming it."""
    resp = client.get("/v1/health")
    assert resp.status_code == 503
    assert resp.get_json()["error"]["details"] == {"redis": "down"}
    assert client.delete("/v1/health").status_code == 405


def test_the_committed_spec_is_what_the_generator_writes() -> None:
    """openapi.yaml is generated from service/openapi.base.yaml and the games'
    declarations (service/openapi.py); `make openapi` writes it.  A hand edit
    or a changed declaration without regenerating fails here."""
    assert SPEC_FILE.read_text(encoding="utf-8") == openapi.render(openapi.build())


@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_is_fully_described_by_its_declarations(spec: dict[str, Any], name: str) -> None:
    """A registered game has its options and state in the spec, its name and
    presets in the enums, and GET /v1/games describes exactly the declared
    options: a new game cannot be half-described."""
    game = GAMES[name]
    schemas = spec["components"]["schemas"]
    prefix = name.capitalize()
    assert set(schemas[f"{prefix}Options"]["properties"]) == {opt.name for opt in game.options}
    assert {"$ref": f"#/components/schemas/{prefix}Options"} in schemas["Options"]["anyOf"]
    assert schemas["State"]["discriminator"]["mapping"][name] == f"#/components/schemas/{prefix}State"
    assert name in schemas["GameName"]["enum"]
    assert set(game.presets) <= set(schemas["PresetName"]["enum"])
    described = game.describe()
    assert set(described["options"]) == {opt.name for opt in game.options}
    for opt in game.options:
        assert described["options"][opt.name]["default"] == opt.json_default
    # a new game with its defaults dumps a state the spec's schema for it accepts
    dumped = game.dump(game.new({"seed": "spec"} if name == "crystal" else {}))
    checker = SpecChecker(spec)
    assert checker.validate(f"/components/schemas/{prefix}State", dumped) == []
