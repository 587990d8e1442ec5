"""The match store's failures are answered in one place (issue 33, "Errors mapped once";
service/matches/failures.py): a match that is not there, a write Redis did not confirm and
Redis out of reach get the same answer whichever view met them, health included, and no
view builds those answers itself."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from matchkit import NewMatch

from service.matches.errors import Unconfirmed
from service.matches.store import Store

ROOT = Path(__file__).resolve().parents[2]
STORE_CODES = ("match_not_found", "outcome_unknown", "unavailable")


def codes_named(path: Path) -> set[str]:
    """The store's error codes a module writes as string constants (an ApiError or an answer it builds)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value in STORE_CODES}


def test_only_the_failures_module_names_the_store_s_error_codes() -> None:
    """Before, routes.py, events.py, history.py and health.py each turned Gone or a Redis error into an
    answer of their own.  Health still names ``unavailable`` for what it finds by asking (a master
    without a replica, a degraded cluster): findings, not failures; so does creating a match that
    finds no free id (96 random bits clashing three times), no failure of Redis either."""
    found = {
        str(p.relative_to(ROOT)): codes
        for p in sorted((ROOT / "service").rglob("*.py"))
        if (codes := codes_named(p)) and p.name != "failures.py"
    }
    del found["service/web/errors.py"]  # ERROR_CODES: every code's status
    assert found == {"service/matches/health.py": {"unavailable"}, "service/matches/routes.py": {"unavailable"}}


def test_redis_out_of_reach_is_one_answer_for_health_and_for_a_match(
    client_for: Callable[..., FlaskClient], tmp_path: Path
) -> None:
    client = client_for(REDIS_URL=f"unix://{tmp_path}/no.sock", REDIS_TIMEOUT_S=0.3)
    answers = [
        client.get("/v1/health"),
        client.get("/v1/matches/00nosuchmatchatall"),
        client.post("/v1/matches", json={"game": "catchup"}),
        client.get("/v1/matches/00nosuchmatchatall/events"),
        client.get("/v1/matches/00nosuchmatchatall/board.svg"),
    ]
    assert {(r.status_code, r.get_data()) for r in answers} == {(503, answers[0].get_data())}
    assert answers[0].json["error"]["details"] == {"redis": "down"}


def test_a_match_that_is_not_there_is_one_answer_everywhere(client: FlaskClient, new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    gone = "00nosuchmatchatall"
    paths = ["", "/moves", "/events", "/board.svg", "/post", "/webhooks"]
    answers = [client.get(f"/v1/matches/{gone}{path}") for path in paths]
    answers.append(client.post(f"/v1/matches/{gone}/moves", json={"move": "C3", "ply": 0}, headers=m.auth(0)))
    expected = {"code": "match_not_found", "message": f"There is no match '{gone}' (never created, or expired).", "details": None}
    assert [(r.status_code, r.json["error"]) for r in answers] == [(404, expected)] * len(answers)


def test_an_unconfirmed_write_names_what_it_was(
    client: FlaskClient, new_match: NewMatch, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The view says what the change was (``this move``, ``the resignation``); the answer is built in one place."""
    m = new_match("catchup", {"size": 3})

    def lost(*args: Any, **kwargs: Any) -> Any:
        raise Unconfirmed("no_answer", "TimeoutError: Timeout reading from socket")

    monkeypatch.setattr(Store, "commit", lost)
    move, resign = m.move(0, "C3", 0), m.resign(1)
    assert [r.status_code for r in (move, resign)] == [503, 503]
    assert move.json["error"]["message"].startswith("Redis did not confirm this move: it may or may not have been applied.")
    assert resign.json["error"]["message"].startswith("Redis did not confirm the resignation: ")
    assert move.json["error"]["details"] == resign.json["error"]["details"] == {"retry": True}
