"""openapi.yaml is the contract: valid OpenAPI 3.1, the same paths as the app,
examples that match their own schemas, and answers that match it.

Every answer of every test that uses the ``client`` fixture is validated
against the spec as it arrives (tests/conftest.py); the tests here check the
spec itself, the checker's power to fail, and that each documented answer of
the stateless endpoints is actually produced and checked.
"""

from __future__ import annotations

import dataclasses
import io
import time
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from openapi_check import METHODS, SPEC_FILE, SpecChecker, escape, flask_rule_to_template
from openapi_spec_validator import validate as validate_spec

import views
from engine.registry import GAMES, ROOMS
from service import create_app
from service.api import openapi, renderer
from service.api.games import import_formats
from service.api.suggest import search_pool

JSON = "application/json"


def test_spec_is_valid_openapi_3_1(spec: dict[str, Any]) -> None:
    assert spec["openapi"].startswith("3.1")
    validate_spec(spec)  # raises on any violation of the OpenAPI 3.1 schema


def app_operations(app: Flask) -> set[tuple[str, str]]:
    """Every (path, method) the app serves, a ``<game>`` route once per game (the
    spec ties each body to its game, so it writes those paths once per game)."""
    out = set()
    for rule in app.url_map.iter_rules():
        for method in rule.methods or ():
            if method not in ("HEAD", "OPTIONS"):
                template = flask_rule_to_template(rule.rule)
                games = [
                    name
                    for name in GAMES
                    if (import_formats(name) or not template.endswith("/import"))
                    and (ROOMS[name].records or not template.endswith("/export"))
                ]
                paths = [template.replace("{game}", name) for name in games] if "{game}" in template else [template]
                out.update((path, method) for path in paths)
    return out


def spec_operations(spec: dict[str, Any]) -> set[tuple[str, str]]:
    return {(path, m.upper()) for path, item in spec["paths"].items() for m in METHODS if m in item}


def test_app_routes_equal_spec_paths(app: Flask, spec: dict[str, Any]) -> None:
    routes = app_operations(app)
    documented = spec_operations(spec)
    assert routes - documented == set(), "routes the spec does not describe"
    assert documented - routes == set(), "spec paths the app does not serve"


def test_every_stateless_operation_is_written_once_per_game(spec: dict[str, Any]) -> None:
    """No template path for the games: a body is tied to its game by its path, so
    a Crystal state sent to /v1/games/catchup/play is not schema-valid."""
    assert not [p for p in spec["paths"] if "{game}" in p]
    for name in GAMES:
        prefix = name.capitalize()
        op = spec["paths"][f"/v1/games/{name}/play"]["post"]
        assert op["operationId"] == f"{name}Play" and op["tags"] == [name]
        body = op["requestBody"]["content"][JSON]["schema"]
        assert body == {"$ref": f"#/components/schemas/{prefix}PlayRequest"}
        state = spec["components"]["schemas"][f"{prefix}PlayRequest"]["properties"]["state"]
        assert state == {"$ref": f"#/components/schemas/{prefix}State"}
    checker = SpecChecker(spec)
    crystal = GAMES["crystal"].dump(GAMES["crystal"].new({"seed": "x"}))
    assert checker.validate("/components/schemas/CatchupPlayRequest", {"state": crystal, "move": "C3"})
    assert not checker.validate("/components/schemas/CrystalPlayRequest", {"state": crystal, "move": "first"})


def test_no_key_of_the_spec_is_a_sentence(spec: dict[str, Any]) -> None:
    """An unquoted comma in a YAML flow mapping (``{description: a, b}``) silently
    makes ``b`` a key and cuts the text; no name in the spec has a space."""
    sentences = []

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if " " in str(key):
                    sentences.append(f"{where}/{key}")
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}/{i}")

    walk(spec, "")
    assert sentences == []


def test_concrete_paths_win_over_templates() -> None:
    """OpenAPI matches concrete paths before templated ones; so does the checker."""
    checker = SpecChecker({"paths": {"/v1/{a}/play": {}, "/v1/games/{game}/play": {}, "/v1/games/catchup/play": {}}})
    assert checker.template_for("/v1/games/catchup/play") == "/v1/games/catchup/play"
    assert checker.template_for("/v1/games/bug/play") == "/v1/games/{game}/play"
    assert checker.template_for("/v1/other/play") == "/v1/{a}/play"


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
    ("product", {"size": 3}),
    ("product", {"size": 2, "variant": "bentley", "lone_group": "size", "blocked": ["B2"]}),
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


def _first_move(name: str, state: dict[str, Any]) -> str:
    move: str = GAMES[name].legal_moves(GAMES[name].load(state)).moves[0]
    if name == "crystal" and state["phase"] == "shift":
        move = ", ".join([move] * state["shifts_due"])
    return move


class SlowBody(io.BytesIO):
    """A request body of 100 bytes that arrive one at a time, 30 ms apart (a slow client)."""

    def __init__(self) -> None:
        super().__init__(b" " * 100)

    def read(self, size: int | None = -1) -> bytes:
        time.sleep(0.03)
        return super().read(1)


def test_each_documented_stateless_answer_is_produced(client: FlaskClient, spec_checker: SpecChecker, monkeypatch: Any) -> None:
    limited = create_app({"TESTING": True, "RATE_LIMIT": "1/hour"})
    limited.test_client_class = type(client)
    flooded = limited.test_client()
    assert search_pool(limited).wait_ready(60)  # its suggestion's first answer is a move, not "still starting"
    impatient = create_app({"TESTING": True, "BODY_TIMEOUT_S": 0.05})  # service/web/guard.py: 408 body_timeout
    impatient.test_client_class = type(client)
    slow = impatient.test_client()

    def busy(*args: Any, **kwargs: Any) -> Any:  # every renderer busy: tests/matches/test_picture_guard.py makes it so for real
        raise renderer.Busy("Every picture renderer is busy and the queue is full.")

    states = {}
    assert search_pool(client.application).wait_ready(60)  # a suggestion's 200 needs a searcher ready (issue 37, item 11)
    for number, name in enumerate(GAMES):
        options: dict[str, Any] = {"seed": "spec"} if name == "crystal" else {}
        state = states[name] = client.post(f"/v1/games/{name}/new", json={"options": options}).get_json()["state"]
        bodies = {
            "new": {"options": options},
            "play": {"state": state, "move": _first_move(name, state)},
            "legal-moves": {"state": state},
            "replay": {"options": options, "moves": []},
            "render": {"state": state, "format": "svg"},  # the desk's pictures and posts
            "post": {"state": state},
            "suggest": {"state": state, "bot": "random"},  # a built-in bot's move (service/api/suggest.py)
        }
        for kind, (what, body) in enumerate(bodies.items()):
            path = f"/v1/games/{name}/{what}"
            assert client.post(path, json=body).status_code == 200
            assert client.post(path, data="{", content_type=JSON).status_code == 400
            assert client.get(path).status_code == 405
            assert client.post(path, data=b" " * (300 * 1024), content_type=JSON).status_code == 413
            assert client.post(path, data="{}", content_type="text/plain").status_code == 415
            assert client.post(path, json={"nonsense": 1}).status_code == 422
            headers = {"Content-Length": "100"}
            assert slow.post(path, input_stream=SlowBody(), content_type=JSON, headers=headers).status_code == 408
            addr = {"REMOTE_ADDR": f"10.9.{number}.{kind}"}
            assert flooded.post(path, json=body, environ_base=addr).status_code == 200
            assert flooded.post(path, json=body, environ_base=addr).status_code == 429
        with monkeypatch.context() as patched:
            patched.setattr(renderer.Pool, "render", busy)
            r = client.post(f"/v1/games/{name}/render", json={"state": state, "format": "png"})
            assert r.status_code == 503 and r.headers["Retry-After"] == "1"
        for fmt in ROOMS[name].records:  # a game a client holds, written as another site writes it
            path = f"/v1/games/{name}/export"
            body = {"format": fmt, "options": state["options"], "moves": [_first_move(name, state)], "players": ["Ann", "Bob"]}
            assert client.post(path, json=body).status_code == 200
            assert client.post(path, json={**body, "moves": ["not a move"]}).status_code == 422
            assert client.post(path, data="{", content_type=JSON).status_code == 400
            assert client.get(path).status_code == 405
            assert client.post(path, data=b" " * (300 * 1024), content_type=JSON).status_code == 413
            assert client.post(path, data="{}", content_type="text/plain").status_code == 415
            headers = {"Content-Length": "100"}
            assert slow.post(path, input_stream=SlowBody(), content_type=JSON, headers=headers).status_code == 408
            addr = {"REMOTE_ADDR": f"10.6.{number}.1"}
            assert flooded.post(path, json=body, environ_base=addr).status_code == 200
            assert flooded.post(path, json=body, environ_base=addr).status_code == 429
        for fmt in [f["name"] for f in import_formats(name)]:  # other sites' records, and the text diagram
            path = f"/v1/games/{name}/import"
            if fmt == "diagram":  # a position read back from the text diagram that render prints
                text = client.post(f"/v1/games/{name}/render", json={"state": state, "format": "text"}).get_data(as_text=True)
                unreadable, body = "no board here", {"format": fmt, "text": text, "to_move": None}
            else:
                record = ROOMS[name].records[fmt]
                unreadable = record.write(state["options"], [], ["", ""])
                body = {"format": fmt, "text": record.write(state["options"], [_first_move(name, state)], ["", ""])}
            assert client.post(path, json={"format": fmt, "text": unreadable}).status_code == 422
            assert client.post(path, json=body).status_code == 200
            assert client.post(path, json={**body, "format": "sgf"}).status_code == 422
            assert client.post(path, data="{", content_type=JSON).status_code == 400
            assert client.get(path).status_code == 405
            assert client.post(path, data=b" " * (300 * 1024), content_type=JSON).status_code == 413
            assert client.post(path, data="{}", content_type="text/plain").status_code == 415
            headers = {"Content-Length": "100"}
            assert slow.post(path, input_stream=SlowBody(), content_type=JSON, headers=headers).status_code == 408
            addr = {"REMOTE_ADDR": f"10.7.{number}.{len(fmt)}"}
            assert flooded.post(path, json=body, environ_base=addr).status_code == 200
            assert flooded.post(path, json=body, environ_base=addr).status_code == 429
        board = f"/v1/games/{name}/board"
        assert client.get(board).status_code == 200
        assert client.get(board + "?nonsense=1").status_code == 422
        assert client.post(board).status_code == 405
        addr = {"REMOTE_ADDR": f"10.8.{number}.1"}
        assert flooded.get(board, environ_base=addr).status_code == 200
        assert flooded.get(board, environ_base=addr).status_code == 429
        assert client.post(f"/v1/games/chess/{name}", json={}).status_code == 404  # no such address: the error shape
    listed = client.get("/v1/games")
    assert listed.status_code == 200
    assert client.get("/v1/games", headers={"If-None-Match": listed.headers["ETag"]}).status_code == 304
    assert client.post("/v1/games").status_code == 405
    assert flooded.get("/v1/games", environ_base={"REMOTE_ADDR": "10.9.9.9"}).status_code == 200
    assert flooded.get("/v1/games", environ_base={"REMOTE_ADDR": "10.9.9.9"}).status_code == 429
    assert client.get("/v1/games/catchup/board?size=99").status_code == 422
    assert client.get("/v1/games/chess/board").status_code == 404
    busy = create_app({"TESTING": True, "SUGGEST_PROCESSES": 1, "SUGGEST_QUEUE": 0})
    busy.test_client_class = type(client)
    search_pool(busy).inflight = 1  # one search under way: the pool is full (tests/test_suggest.py runs a real one)
    for name in GAMES:
        body = {"state": states[name], "bot": "random"}
        assert busy.test_client().post(f"/v1/games/{name}/suggest", json=body).status_code == 503

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    for game in GAMES.values():
        for method in ("describe", "new", "load", "replay"):
            monkeypatch.setattr(game, method, fail)
    for name, room in ROOMS.items():
        broken_records = {fmt: dataclasses.replace(record, read=fail) for fmt, record in room.records.items()}
        monkeypatch.setitem(ROOMS, name, dataclasses.replace(room, records=broken_records))
        for fmt in broken_records:
            assert client.post(f"/v1/games/{name}/import", json={"format": fmt, "text": "1. x"}).status_code == 500
            export = {"format": fmt, "moves": []}  # the engine's replay judges the moves
            assert client.post(f"/v1/games/{name}/export", json=export).status_code == 500
        if "diagram" in [f["name"] for f in import_formats(name)]:  # the engine's `new` judges the position read
            diagram = {"format": "diagram", "text": views.text(states[name])}
            assert client.post(f"/v1/games/{name}/import", json=diagram).status_code == 500
    unlisted = create_app({"TESTING": True})  # the list is made once per app: this one has not made it yet
    unlisted.test_client_class = type(client)
    assert unlisted.test_client().get("/v1/games").status_code == 500
    broken = {"new": {}, "play": {"state": {}, "move": "x"}, "legal-moves": {"state": {}}, "replay": {"moves": []}}
    for name in GAMES:
        for what, body in broken.items():
            assert client.post(f"/v1/games/{name}/{what}", json=body).status_code == 500
        assert client.post(f"/v1/games/{name}/suggest", json={"state": {}, "bot": "random"}).status_code == 500
        for what, body in {"render": {"state": states[name], "format": "svg"}, "post": {"state": states[name]}}.items():
            assert client.post(f"/v1/games/{name}/{what}", json=body).status_code == 500
        assert client.get(f"/v1/games/{name}/board").status_code == 500

    stateless = {(p, m, s) for p, m, s in spec_checker.documented() if p.startswith("/v1/games")}
    assert stateless - spec_checker.checked == set()


def test_health_names_what_is_down(client: FlaskClient) -> None:
    """The root app's Redis cannot be reached (tests/conftest.py): 503, naming it."""
    resp = client.get("/v1/health")
    assert resp.status_code == 503
    assert resp.get_json()["error"]["details"] == {"redis": "down"}
    assert client.delete("/v1/health").status_code == 405


def test_the_committed_spec_is_what_the_generator_writes() -> None:
    """openapi.yaml is generated from service/api/openapi.base.yaml and the games'
    declarations (service/api/openapi.py); `make openapi` writes it.  A hand edit
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
    assert schemas[f"{prefix}MatchCreate"]["properties"]["options"] == {"$ref": f"#/components/schemas/{prefix}Options"}
    assert schemas["MatchCreate"]["discriminator"]["mapping"][name] == f"#/components/schemas/{prefix}MatchCreate"
    assert schemas["State"]["discriminator"]["mapping"][name] == f"#/components/schemas/{prefix}State"
    assert set(schemas[f"{prefix}End"]["enum"]) == set(game.ends)
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


def test_a_blank_move_is_blank_to_the_spec_and_to_the_service_alike(spec: dict[str, Any], client: FlaskClient) -> None:
    """JSON Schema's white space is ECMA-262's: "\\x1c" is not blank there (it is to Python's
    str.isspace), so the service judges it as a move instead of refusing the body."""
    from service.web.schemas import NOT_BLANK

    assert spec["components"]["schemas"]["Move"]["oneOf"][0]["pattern"] == NOT_BLANK
    state = _new_state(client)
    resp = client.post("/v1/games/catchup/play", json={"state": state, "move": "\x1c"})
    assert resp.status_code == 200 and resp.get_json()["legal"] is False
    for blank in (" ", "\u3000\t", "\ufeff"):
        resp = client.post("/v1/games/catchup/play", json={"state": state, "move": blank})
        assert resp.status_code == 422 and resp.get_json()["error"]["details"]["field"] == "move"
