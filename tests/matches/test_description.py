"""Decide, commit, describe, answer (issue 33, "A move's answer is built after its commit" and
"One event, one shape"; service/matches/changes.py, description.py).

The referee decides and nothing more; a change is described once it is committed, and the
HTTP answer and the event stream each write that one description, so they tell a change
alike, whoever sent it."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from matchkit import FakeClock, Match, NewMatch, sse_events

import views
from service.matches.errors import Conflict
from service.matches.store import Store

ROOT = Path(__file__).resolve().parents[2]


def imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


def test_the_referee_decides_and_describes_nothing() -> None:
    """referee.py once built announcements (views) and verdicts (service.web.schemas) inside the
    compare-and-set loop, though its first line said "no Redis and no Flask"."""
    found = imported(ROOT / "service/matches/referee.py") - {"__future__", "dataclasses", "typing"}
    outside = {m for m in found if not m.startswith(("engine.", "service.matches."))}
    assert outside == set()
    assert not {m for m in found if m.startswith("service.matches.")} - {
        "service.matches.match", "service.matches.record", "service.matches.jsontext", "service.matches.transcript"
    }  # fmt: skip


def test_a_lost_race_costs_no_description(client: FlaskClient, new_match: NewMatch, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first commit loses a race: the move is decided again, and described once, after the commit."""
    m = new_match("catchup", {"size": 3})
    said: list[int] = []
    real_announce, real_commit = views.announcements, Store.commit
    lost: list[bool] = []

    def announcements(*args: Any, **kwargs: Any) -> list[str]:
        said.append(1)
        return real_announce(*args, **kwargs)

    def commit(self: Store, *args: Any, **kwargs: Any) -> int:
        if not lost:
            lost.append(True)
            raise Conflict(m.id)  # someone changed the match meanwhile (as far as this attempt knows)
        return real_commit(self, *args, **kwargs)

    monkeypatch.setattr(views, "announcements", announcements)
    monkeypatch.setattr(Store, "commit", commit)
    r = m.move(0, "C3", 0)
    assert r.status_code == 200 and r.json["announcements"] and lost == [True]
    assert len(said) == 1


@pytest.mark.app_config(EVENTS_LIFETIME_S=0.2)
def test_a_refused_attempt_in_an_r_x6_window_is_told_alike_by_the_answer_and_the_stream(
    client: FlaskClient, new_match: NewMatch, fake_clock: FakeClock
) -> None:
    """Seat 1 flags (R-X6): seat 0 may move for it, and sends a move that is not one.  The answer
    named the sender, the stream the flagged seat; now both tell the one description."""
    seed = {"seed": "events", "colors": [["red", "green"], ["blue", "yellow"]], "first": 1}
    m = new_match("crystal", seed, clock={"turn_s": 1, "bank_s": 1})
    fake_clock.advance(2.5)  # seat 1 flags at 2 s: the window is seat 0's to use for it
    assert m.get().json["clock"]["proxy"] is True
    answer = m.move(0, "nonsense", 0)
    assert answer.status_code == 422 and answer.json["legal"] is False
    assert answer.json["clock"]["proxy"] is True and answer.json["clock"]["may_move"] == 0  # the window is still open
    events = sse_events(client.get(f"/v1/matches/{m.id}/events", headers={"Last-Event-ID": "0"}).get_data(as_text=True))
    [data] = [data for name, _, data in events if name == "illegal"]
    assert data["by"] == 0 and data["seat"] == 1
    assert data["announcements"] == answer.json["announcements"]
    assert data["clock"] == answer.json["clock"] and data["state"] == answer.json["state"]
    assert data["events"][0]["player"] == 0  # the sender's attempt
    record = m.record()["moves"]
    assert record[-1]["kind"] == "illegal" and record[-1]["events"] == data["events"]


@pytest.mark.app_config(EVENTS_LIFETIME_S=0.2)
def test_every_change_s_answer_and_stream_event_are_one_description(client: FlaskClient, fake_clock: FakeClock) -> None:
    """A move, a refused attempt, the umpire's pause, gift of time and resumption, and a forfeit:
    what the answer said of each (announcements, clock, state, events) is what the stream says."""
    made = client.post("/v1/matches", json={"game": "catchup", "options": {"size": 3}, "illegal": "forfeit"}).json
    m = Match(client, made["match_id"], (made["seats"]["0"], made["seats"]["1"]), made)
    umpire = {"Authorization": f"Bearer {made['umpire']}"}
    answers = [m.move(0, "C3", 0)]
    fake_clock.advance(1.5)
    answers.append(client.post(f"/v1/matches/{m.id}/pause", headers=umpire))
    answers.append(client.post(f"/v1/matches/{m.id}/add-time", json={"seat": 1, "seconds": 2.5}, headers=umpire))
    fake_clock.advance(3)
    answers.append(client.post(f"/v1/matches/{m.id}/resume", headers=umpire))
    answers.append(m.move(1, "Z9", 1))  # illegal under the forfeit policy: seat 1 loses
    assert [r.status_code for r in answers] == [200, 200, 200, 200, 422]
    events = sse_events(client.get(f"/v1/matches/{m.id}/events", headers={"Last-Event-ID": "0"}).get_data(as_text=True))
    assert [name for name, _, _ in events] == ["move", "pause", "add_time", "resume", "illegal", "end"]
    for (_, _, data), r in zip(events, answers, strict=False):
        assert data["announcements"] == r.json["announcements"]
        assert data["clock"] == r.json["clock"] and data["state"] == r.json["state"] and data["events"] == r.json["events"]
