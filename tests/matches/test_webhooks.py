"""A match posts to its webhooks by itself (issue 22; service/matches/outbox.py, webhooks.py).

Against a real receiver on loopback (a threaded WSGI server) that checks each
format's documented payload as it arrives - Discord's execute-webhook multipart
request, Slack's incoming-webhook JSON, the service's own ``WebhookPayload``
(openapi.yaml) - and counts what it accepted.  Deliverers run in threads of the
test, as ``flask deliver`` runs them, with short timeouts and waits.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from gamekit import random_move
from hookkit import PNG_MAGIC, TOKEN, Receiver, until
from liveserver import serve
from matchkit import Match
from openapi_check import SpecChecker

from engine.registry import GAMES
from service.matches import outbox
from service.matches.deliverer import Deliverer
from service.matches.store import Store, shard_of

Json = dict[str, Any]
FAST = {
    "WEBHOOK_POLL_S": 0.05,
    "WEBHOOK_BACKOFF_S": 0.05,
    "WEBHOOK_BACKOFF_MAX_S": 0.2,
    "WEBHOOK_TIMEOUT_S": 3.0,  # well above a loaded machine's answer time: a try that times out is tried again
    "WEBHOOK_TRIES": 8,
}


@pytest.fixture
def receivers(spec_checker: SpecChecker) -> Iterator[Callable[..., Receiver]]:
    made: list[Receiver] = []

    def make(fmt: str, **kw: Any) -> Receiver:
        r = Receiver(fmt, spec_checker, **kw).start()
        made.append(r)
        return r

    yield make
    for r in made:
        r.gate.set()
        r.stop()


@pytest.fixture
def deliverers(app: Flask, store: Store) -> Iterator[Callable[[], Deliverer]]:
    """Deliverers running in threads, as ``flask deliver`` runs one (stopped at the end)."""
    app.config.update(FAST)
    running: list[tuple[Deliverer, threading.Event, threading.Thread]] = []

    def start() -> Deliverer:
        d, stop = Deliverer(app, store), threading.Event()
        thread = threading.Thread(target=d.run, args=(stop,), daemon=True)
        thread.start()
        running.append((d, stop, thread))
        return d

    yield start
    for d, stop, thread in running:
        stop.set()
        thread.join(10)
        d.close()


def allow(app: Flask, *receivers: Receiver) -> None:
    app.config["WEBHOOK_ALLOW"] = ",".join(f"127.0.0.1:{r.port}" for r in receivers)


def hooked(client: FlaskClient, *hooks: Receiver, **body: Any) -> Match:
    """A Catchup match of size 3 posting to ``hooks``."""
    r = client.post(
        "/v1/matches",
        json={"game": "catchup", "options": {"size": 3}, "webhooks": [{"url": h.url, "format": h.fmt} for h in hooks], **body},
    )
    assert r.status_code == 201, r.json
    return Match(client, r.json["match_id"], (r.json["seats"]["0"], r.json["seats"]["1"]), r.json)


def play(m: Match) -> None:
    """Three moves, an illegal attempt (refused, the clock runs on), then seat 1 resigns: five changes."""
    assert m.move(0, "C3", 0).status_code == 200
    assert m.move(1, "B2 B3", 1).status_code == 200
    assert m.move(0, "C2 C4 D3", 2).status_code == 200
    assert m.move(1, "C3", 3).status_code == 422  # taken: illegal, refused (the reject policy)
    assert m.resign(1).status_code == 200


def status(client: FlaskClient, m: Match, token: str = "admin-token") -> Json:
    r = client.get(f"/v1/matches/{m.id}/webhooks", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.json
    out: Json = r.json
    return out


def settled_status(client: FlaskClient, m: Match, changes: int) -> Json:
    """The match's webhooks once each has posted or given up ``changes`` changes (a receiver notes a
    post before it answers, and the deliverer counts it once it has the answer)."""
    until(
        lambda: all(w["delivered"] + w["failed"] >= changes for w in status(client, m)["webhooks"]),
        what=f"{changes} changes counted",
    )
    return status(client, m)


ADMIN = pytest.mark.app_config(ADMIN_TOKEN="admin-token")
HOOK = {"url": "https://hooks.example.org/a", "format": "json"}


# -- creation -------------------------------------------------------------------------------


def test_webhooks_are_refused_when_the_operator_allows_no_host(client: FlaskClient) -> None:
    body = {"game": "catchup", "webhooks": [{"url": "https://discord.com/api/webhooks/1/x", "format": "discord"}]}
    r = client.post("/v1/matches", json=body)
    assert r.status_code == 422 and r.json["error"]["code"] == "webhook_refused"
    assert r.json["error"]["details"]["field"] == "webhooks" and "WEBHOOK_ALLOW" in r.json["error"]["message"]


@pytest.mark.app_config(WEBHOOK_ALLOW="hooks.example.org, 127.0.0.1:9999")
@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("https://evil.example.org/x", "WEBHOOK_ALLOW"),  # a host not allowed
        ("https://hooks.example.org:8443/x", "WEBHOOK_ALLOW"),  # an allowed host, another port
        ("http://127.0.0.1:9998/x", "WEBHOOK_ALLOW"),
        ("https://127.0.0.1:9999.evil.example/x", ""),  # not a port
        ("ftp://hooks.example.org/x", "http or https"),
        ("https://user:pw@hooks.example.org/x", "user name or password"),
        ("https://hooks.example.org/x#frag", "fragment"),
        ("/relative", "absolute"),
    ],
)
def test_a_url_the_server_will_not_post_to_is_named(client: FlaskClient, url: str, why: str) -> None:
    ok = {"url": "https://hooks.example.org/ok", "format": "json"}
    r = client.post("/v1/matches", json={"game": "catchup", "webhooks": [ok, {"url": url, "format": "slack"}]})
    assert r.status_code == 422, r.json
    assert r.json["error"]["code"] == "webhook_refused" and r.json["error"]["details"]["field"] == "webhooks.1.url"
    assert why in r.json["error"]["message"]


@pytest.mark.app_config(WEBHOOK_ALLOW="hooks.example.org")
@pytest.mark.parametrize(
    ("hooks", "field"),
    [
        ([{"url": "https://hooks.example.org/a", "format": "json"}] * 4, "webhooks"),  # at most three
        ([{"url": "https://hooks.example.org/a", "format": "teams"}], "webhooks.0.format"),
        ([{"url": "https://hooks.example.org/a"}], "webhooks.0.format"),
        ([{"url": "https://hooks.example.org/a", "format": "json", "secret": "x"}], "webhooks.0.secret"),
        ([{"url": "https://hooks.example.org/" + "a" * 2000, "format": "json"}], "webhooks.0.url"),
    ],
)
def test_the_webhooks_field_is_checked_by_the_schema(client: FlaskClient, hooks: Any, field: str) -> None:
    r = client.post("/v1/matches", json={"game": "catchup", "webhooks": hooks})
    assert r.status_code == 422 and r.json["error"]["code"] == "invalid_body", r.json
    assert r.json["error"]["details"]["field"] == field, r.json


@pytest.mark.app_config(WEBHOOK_ALLOW="hooks.example.org")
def test_an_allowed_host_takes_its_default_port_only(client: FlaskClient) -> None:
    cases = [("https://hooks.example.org:443/a", 201), ("http://HOOKS.example.org/a", 201)]
    cases.append(("https://hooks.example.org:444/a", 422))
    for url, code in cases:
        r = client.post("/v1/matches", json={"game": "catchup", "webhooks": [{"url": url, "format": "json"}]})
        assert r.status_code == code, (url, r.json)


def test_a_malformed_allow_list_stops_the_app_at_start(app: Flask) -> None:
    from service import create_app

    with pytest.raises(ValueError, match="WEBHOOK_ALLOW"):
        create_app({"TESTING": True, "WEBHOOK_ALLOW": "hooks.example.org/path"})


@ADMIN
def test_the_url_is_never_answered_only_its_host(client: FlaskClient, app: Flask, receivers: Callable[..., Receiver]) -> None:
    hook = receivers("discord")
    allow(app, hook)
    m = hooked(client, hook)
    assert TOKEN not in json.dumps(m.created) and TOKEN not in client.get(f"/v1/matches/{m.id}").get_data(as_text=True)
    seen = status(client, m)
    assert TOKEN not in json.dumps(seen)
    assert seen["webhooks"] == [
        {"format": "discord", "host": f"127.0.0.1:{hook.port}", "delivered": 0, "failed": 0, "pending": 0,
         "last_error": None, "failures": []}
    ]  # fmt: skip


@pytest.mark.app_config(ADMIN_TOKEN="admin-token", WEBHOOK_ALLOW="hooks.example.org")
def test_the_match_umpire_or_the_admin_reads_the_webhooks(client: FlaskClient) -> None:
    r = client.post("/v1/matches", json={"game": "catchup", "webhooks": [HOOK]})
    match_id, seat, umpire = r.json["match_id"], r.json["seats"]["0"], r.json["umpire"]
    path = f"/v1/matches/{match_id}/webhooks"
    assert client.get(path).status_code == 401
    assert client.get(path, headers={"Authorization": "Bearer not-a-token"}).status_code == 401
    by_seat = client.get(path, headers={"Authorization": f"Bearer {seat}"})
    assert by_seat.status_code == 403 and by_seat.json["error"]["code"] == "not_umpire"
    for token in (umpire, "admin-token"):
        got = client.get(path, headers={"Authorization": f"Bearer {token}"})
        assert got.status_code == 200 and got.json["webhooks"][0]["host"] == "hooks.example.org"
    admin = {"Authorization": "Bearer admin-token"}
    assert client.get("/v1/matches/00AAAAAAAAAAAAAAAA/webhooks", headers=admin).status_code == 404


def test_a_match_without_webhooks_has_an_empty_list(client: FlaskClient) -> None:
    r = client.post("/v1/matches", json={"game": "catchup"})
    got = client.get(f"/v1/matches/{r.json['match_id']}/webhooks", headers={"Authorization": f"Bearer {r.json['umpire']}"})
    assert got.status_code == 200 and got.json == {"match_id": r.json["match_id"], "webhooks": []}


# -- delivery -------------------------------------------------------------------------------


@ADMIN
def test_each_format_gets_every_change_once_in_order(
    client: FlaskClient, app: Flask, receivers: Callable[..., Receiver], deliverers: Callable[[], Deliverer]
) -> None:
    hooks = [receivers("discord"), receivers("slack"), receivers("json")]
    allow(app, *hooks)
    app.config["PUBLIC_URL"] = "https://umpire.example.org/"
    m = hooked(client, *hooks, players=["Ann", "Bob"])
    deliverers()
    play(m)
    until(lambda: all(len(h.accepted) >= 5 for h in hooks), what="five posts to each webhook")
    time.sleep(0.3)  # nothing more comes
    for h in hooks:
        assert not h.problems, h.problems
        assert [a["delivery"] for a in h.accepted] == [f"{m.id}:{k}" for k in range(1, 6)], h.fmt
    record = m.record()["moves"]
    # Discord: the post in Discord's Markdown with the PNG attached; the announcements are the moves' own
    discord = hooks[0].accepted
    assert "Ann plays C3" in discord[0]["text"] and "ply 1" in discord[0]["text"]
    assert discord[0]["png"] != discord[1]["png"]  # the picture after each move
    assert "illegal" in discord[3]["text"].lower()  # an illegal attempt is announced, the board as it was
    assert "resign" in discord[4]["text"].lower()
    # Slack: the picture by its public address, the ply of board.png
    slack = hooks[1].accepted
    for k, a in enumerate(slack):
        # The position's own ply: an illegal attempt shows ply 3 again; the resignation, an end without a move,
        # is the finished match's latest position (no ply: it kept ply 3, which names the position before it).
        ply = min(k + 1, 3) if k < 4 else None
        query = "" if ply is None else f"?ply={ply}"
        image = a["blocks"][1]
        assert image["image_url"] == f"https://umpire.example.org/v1/matches/{m.id}/board.png{query}", image
        picture = client.get(f"/v1/matches/{m.id}/board.png", query_string={} if ply is None else {"ply": ply})
        assert picture.status_code == 200 and picture.data.startswith(PNG_MAGIC)
    # json: the event stream's events, the record's changes
    bodies = [a["body"] for a in hooks[2].accepted]
    assert [b["seq"] for b in bodies] == [1, 2, 3, 4, 5]
    assert [[e["type"] for e in b["events"]] for b in bodies] == [["move"], ["move"], ["move"], ["illegal"], ["resign", "end"]]
    assert [e["id"] for b in bodies for e in b["events"]] == ["1", "2", "3", "3.1", "3.2", "3.3"]
    assert [b["events"][0]["move"] for b in bodies[:3]] == [e["move"] for e in record[:3]]
    assert bodies[0]["announcements"] == bodies[0]["events"][0]["announcements"] and bodies[0]["announcements"]
    assert bodies[4]["events"][1]["result"] == "1-0"
    assert bodies[0]["picture_url"].endswith("/board.png?ply=1") and "Ann" in bodies[0]["post"]
    seen = settled_status(client, m, 5)["webhooks"]
    assert [(w["delivered"], w["failed"], w["pending"], w["failures"]) for w in seen] == [(5, 0, 0, [])] * 3
    # once every change of a finished match is posted, the match leaves the deliverers' index
    store = app.extensions["umpire.store"]
    index = outbox.index_key(store, shard_of(m.id))
    until(lambda: not store.r.sismember(index, m.id), what="the match to leave the index")


@ADMIN
def test_a_receiver_that_fails_and_recovers_gets_everything_once_in_order(
    client: FlaskClient, app: Flask, receivers: Callable[..., Receiver], deliverers: Callable[[], Deliverer]
) -> None:
    hook = receivers("json", plan=["500"], hang_s=2.0)
    allow(app, hook)
    m = hooked(client, hook)
    app.config["WEBHOOK_TIMEOUT_S"] = 1.0  # the hanging answer comes after 2 s
    deliverers()
    assert m.move(0, "C3", 0).status_code == 200
    until(lambda: hook.tries == [f"{m.id}:1"], what="the 500")
    # the receiver is down: connections are refused
    hook.stop()
    assert m.move(1, "B2 B3", 1).status_code == 200
    until(lambda: any("Connect" in (f["error"] or "") for f in status(client, m)["webhooks"][0]["failures"]), what="a refusal")
    # back, but it answers too late once
    hook.plan = ["hang"]
    hook.start()
    assert m.move(0, "C2 C4 D3", 2).status_code == 200
    assert m.resign(1).status_code == 200
    until(lambda: len(hook.accepted) >= 4, what="every change")
    time.sleep(0.3)
    assert not hook.problems
    assert [a["delivery"] for a in hook.accepted] == [f"{m.id}:{k}" for k in range(1, 5)]  # all, once, in order
    seen = settled_status(client, m, 4)["webhooks"][0]
    assert (seen["delivered"], seen["failed"], seen["pending"]) == (4, 0, 0)
    failures = list(reversed(seen["failures"]))  # oldest first
    assert failures[0]["status"] == 500 and failures[0]["seq"] == 1 and failures[0]["attempt"] == 1
    assert any(f["status"] is None and "Connect" in f["error"] for f in failures)
    assert any(f["status"] is None and "timed out" in f["error"] for f in failures)
    assert not any(f["gave_up"] for f in failures)
    # the first change waited for the receiver (the later ones after it, in order): every try was its
    assert [f["seq"] for f in failures] == [1] * len(failures)
    assert [f["attempt"] for f in failures] == list(range(1, len(failures) + 1))
    assert TOKEN not in json.dumps(seen)


@ADMIN
def test_a_move_answers_while_the_receiver_holds_the_post(
    client: FlaskClient, app: Flask, receivers: Callable[..., Receiver], deliverers: Callable[[], Deliverer]
) -> None:
    hook = receivers("json")
    hook.gate.clear()  # every request waits until the test lets it through
    allow(app, hook)
    m = hooked(client, hook)
    deliverers()
    assert m.move(0, "C3", 0).status_code == 200
    until(lambda: status(client, m)["webhooks"][0]["pending"] == 1 and _leased(app, m), what="the post to start")
    # the post of the first move is held by the receiver (and stays held: only the test lets it go)
    assert m.move(1, "B2 B3", 1).status_code == 200
    assert m.move(0, "C2 C4 D3", 2).status_code == 200
    assert _leased(app, m)  # still under way: the moves answered while it was
    assert hook.accepted == [] and hook.tries == []  # nothing was delivered before the moves answered
    hook.gate.set()
    until(lambda: len(hook.accepted) >= 3, what="the three moves")
    assert [a["delivery"].split(":")[1] for a in hook.accepted] == ["1", "2", "3"]


def _leased(app: Flask, m: Match) -> bool:
    store = app.extensions["umpire.store"]
    return store.r.hget(outbox.hooks_key(store, m.id), "lease:0") is not None


@ADMIN
def test_two_deliverers_never_post_a_change_twice(
    client: FlaskClient, app: Flask, receivers: Callable[..., Receiver], deliverers: Callable[[], Deliverer]
) -> None:
    hooks = [receivers("json"), receivers("slack")]
    allow(app, *hooks)
    matches = [hooked(client, *hooks) for _ in range(3)]
    for _ in range(3):
        deliverers()
    for m in matches:
        play(m)
    until(lambda: all(len(h.accepted) >= 15 for h in hooks), what="every change of three matches")
    time.sleep(0.5)
    for h in hooks:
        assert not h.problems
        deliveries = [a["delivery"] for a in h.accepted]
        assert sorted(deliveries) == sorted(f"{m.id}:{k}" for m in matches for k in range(1, 6))  # each once
        assert len(h.tries) == 15  # no second try of anything
        for m in matches:  # and each match's in order
            mine = [int(d.split(":")[1]) for d in deliveries if d.startswith(m.id)]
            assert mine == [1, 2, 3, 4, 5]


def test_a_claim_is_taken_once(app: Flask, store: Store, client: FlaskClient) -> None:
    app.config["WEBHOOK_ALLOW"] = "hooks.example.org"
    r = client.post("/v1/matches", json={"game": "catchup", "webhooks": [HOOK]})
    match_id = r.json["match_id"]
    assert outbox.claim(store, match_id, 0, 0, "a") == 1
    assert outbox.claim(store, match_id, 0, 0, "b") == 0  # leased by a
    assert outbox.claim(store, match_id, 0, 1, "b") == 0  # not the webhook's next change
    assert not outbox.finish(store, match_id, 0, 0, "b", "ok")  # b holds no lease
    assert outbox.finish(store, match_id, 0, 0, "a", "ok")
    assert outbox.claim(store, match_id, 0, 0, "b") == 0  # posted already
    assert outbox.claim(store, match_id, 0, 1, "b") == 1


@ADMIN
def test_a_redirect_and_a_4xx_are_given_up_at_once_and_the_webhook_goes_on(
    client: FlaskClient, app: Flask, receivers: Callable[..., Receiver], deliverers: Callable[[], Deliverer]
) -> None:
    hook = receivers("json", plan=["302", "404"])
    allow(app, hook)
    m = hooked(client, hook)
    deliverers()
    play(m)
    until(lambda: len(hook.accepted) >= 3, what="the changes after the two given up")
    time.sleep(0.3)
    assert [a["delivery"] for a in hook.accepted] == [f"{m.id}:{k}" for k in (3, 4, 5)]
    assert len(hook.tries) == 5  # the redirect was not followed, nothing was tried twice
    seen = settled_status(client, m, 5)["webhooks"][0]
    assert (seen["delivered"], seen["failed"]) == (3, 2)
    assert [(f["seq"], f["status"], f["gave_up"]) for f in reversed(seen["failures"])] == [(1, 302, True), (2, 404, True)]
    assert "redirect" in seen["failures"][1]["error"]


@ADMIN
def test_a_change_is_given_up_after_its_last_try(
    client: FlaskClient, app: Flask, receivers: Callable[..., Receiver], deliverers: Callable[[], Deliverer]
) -> None:
    hook = receivers("json", plan=["500"] * 3)
    allow(app, hook)
    m = hooked(client, hook)
    app.config.update(FAST)
    app.config["WEBHOOK_TRIES"] = 3
    deliverers()
    assert m.move(0, "C3", 0).status_code == 200
    assert m.move(1, "B2 B3", 1).status_code == 200
    until(lambda: len(hook.accepted) == 1, what="the next change")
    time.sleep(0.3)
    assert hook.tries == [f"{m.id}:1"] * 3 + [f"{m.id}:2"]  # three tries of the first, then on to the second
    seen = settled_status(client, m, 2)["webhooks"][0]
    assert (seen["delivered"], seen["failed"], seen["pending"]) == (1, 1, 0)
    assert [(f["attempt"], f["gave_up"]) for f in reversed(seen["failures"])] == [(1, False), (2, False), (3, True)]


@ADMIN
def test_a_host_no_longer_allowed_is_not_posted_to(
    client: FlaskClient, app: Flask, receivers: Callable[..., Receiver], deliverers: Callable[[], Deliverer]
) -> None:
    hook = receivers("json")
    allow(app, hook)
    m = hooked(client, hook)
    app.config["WEBHOOK_ALLOW"] = "hooks.example.org"  # the operator took it out
    deliverers()
    assert m.move(0, "C3", 0).status_code == 200
    until(lambda: status(client, m)["webhooks"][0]["failed"] == 1, what="the refusal")
    assert hook.tries == []
    assert "WEBHOOK_ALLOW" in status(client, m)["webhooks"][0]["last_error"]["error"]


@ADMIN
def test_no_log_line_holds_the_url(
    client: FlaskClient,
    app: Flask,
    receivers: Callable[..., Receiver],
    deliverers: Callable[[], Deliverer],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    hook = receivers("discord", plan=["500"])
    allow(app, hook)
    m = hooked(client, hook)
    deliverers()
    assert m.move(0, "C3", 0).status_code == 200
    until(lambda: len(hook.accepted) == 1, what="the post")
    assert any("failed" in r.getMessage() for r in caplog.records)  # the failure was logged...
    ours = [r for r in caplog.records if r.name != "werkzeug"]  # the receiver's own access log shows its path, of course
    assert not [r.getMessage() for r in ours if TOKEN in r.getMessage()]  # ...by host, never by URL


def test_make_run_starts_a_deliverer_when_hosts_are_allowed(tmp_path: Path, receivers: Callable[..., Receiver]) -> None:
    """``python -m service.run.serve`` (what ``make run`` runs) with WEBHOOK_ALLOW: its own deliverer
    process posts each move made over HTTP, with no test code delivering anything."""
    hook = receivers("json")
    env = {"WEBHOOK_ALLOW": f"127.0.0.1:{hook.port}", "WEBHOOK_POLL_S": "0.1", "ADMIN_TOKEN": "admin-token"}
    with serve(tmp_path, **env) as base:

        def call(method: str, path: str, body: Any = None, token: str | None = None) -> Any:
            headers = {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {token}"} if token else {})
            data = None if body is None else json.dumps(body).encode()
            request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
            with urllib.request.urlopen(request, timeout=10) as answer:
                return json.loads(answer.read())

        body = {"game": "catchup", "options": {"size": 3}, "webhooks": [{"url": hook.url, "format": "json"}]}
        made = call("POST", "/v1/matches", body)
        match_id, seats = made["match_id"], made["seats"]
        call("POST", f"/v1/matches/{match_id}/moves", {"move": "C3", "ply": 0}, seats["0"])
        call("POST", f"/v1/matches/{match_id}/moves", {"move": "B2 B3", "ply": 1}, seats["1"])
        until(lambda: len(hook.accepted) >= 2, timeout=30, what="the deliverer of make run")
        assert [a["delivery"] for a in hook.accepted] == [f"{match_id}:1", f"{match_id}:2"] and not hook.problems
        until(
            lambda: call("GET", f"/v1/matches/{match_id}/webhooks", token="admin-token")["webhooks"][0]["delivered"] == 2,
            what="both counted as delivered",
        )


@ADMIN
@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_is_posted_with_its_picture(
    game: str, client: FlaskClient, app: Flask, receivers: Callable[..., Receiver], deliverers: Callable[[], Deliverer]
) -> None:
    """The issue's "done when": a match of each game, every change posted with its picture."""
    hooks = [receivers("discord"), receivers("json")]
    allow(app, *hooks)
    body = {"game": game, "players": ["Ann", "Bob"], "webhooks": [{"url": h.url, "format": h.fmt} for h in hooks]}
    r = client.post("/v1/matches", json=body)
    assert r.status_code == 201, r.json
    m = Match(client, r.json["match_id"], (r.json["seats"]["0"], r.json["seats"]["1"]), r.json)
    deliverers()
    rnd = random.Random(22)
    g = GAMES[game]
    for _ in range(8):
        state = m.state()
        if state["status"] == "finished":
            break
        answer = m.move(state["to_move"], random_move(g, g.load(state), rnd), state["ply"])
        assert answer.status_code == 200, answer.json
    if m.state()["status"] != "finished":
        assert m.resign(m.state()["to_move"]).status_code == 200
    changes = len(m.record()["moves"])
    until(lambda: all(len(h.accepted) >= changes for h in hooks), timeout=60, what=f"{changes} posts of {game}")
    for h in hooks:
        assert not h.problems, h.problems
        assert [a["delivery"] for a in h.accepted] == [f"{m.id}:{k}" for k in range(1, changes + 1)]
    bodies = [a["body"] for a in hooks[1].accepted]
    assert bodies[-1]["events"][-1]["type"] == "end"
    assert all(b["announcements"] for b in bodies)
    assert len({a["png"] for a in hooks[0].accepted}) == changes  # a picture of each position


@ADMIN
def test_an_answer_that_never_ends_is_cut_off(
    client: FlaskClient, app: Flask, receivers: Callable[..., Receiver], deliverers: Callable[[], Deliverer]
) -> None:
    hook = receivers("json", plan=["drip"])
    allow(app, hook)
    m = hooked(client, hook)
    deliverers()
    assert m.move(0, "C3", 0).status_code == 200
    assert m.move(1, "B2 B3", 1).status_code == 200
    # the 200 counts at once; the answer is read for WEBHOOK_TIMEOUT_S (3 s) at most, not for its 30 s
    until(lambda: len(hook.accepted) >= 2, timeout=15, what="the change after the dripping answer")
    assert [a["delivery"] for a in hook.accepted] == [f"{m.id}:1", f"{m.id}:2"]
    # the receiver notes a post before it answers; the deliverer counts it once answered
    until(lambda: status(client, m)["webhooks"][0]["delivered"] == 2, what="both counted as delivered")


@ADMIN
def test_a_name_cannot_break_out_of_the_slack_block(
    client: FlaskClient, app: Flask, receivers: Callable[..., Receiver], deliverers: Callable[[], Deliverer]
) -> None:
    hook = receivers("slack")
    allow(app, hook)
    m = hooked(client, hook, players=["```<!channel> *Ann*", "Bob"])
    deliverers()
    assert m.move(0, "C3", 0).status_code == 200
    until(lambda: len(hook.accepted) == 1, what="the post")
    assert not hook.problems
    text = hook.accepted[0]["blocks"][0]["text"]["text"]
    assert text.startswith("```\n") and text.endswith("\n```") and text.count("```") == 2
    assert "<!channel>" not in text and "&lt;!channel&gt;" in text  # Slack's mention syntax is escaped
    assert "<!channel>" not in hook.accepted[0]["text"]


@ADMIN
def test_a_change_wakes_the_deliverer(
    client: FlaskClient, app: Flask, receivers: Callable[..., Receiver], deliverers: Callable[[], Deliverer]
) -> None:
    """The commit's publication on the match's channel wakes the deliverer: with a poll of a minute,
    posts still follow the moves."""
    hook = receivers("json")
    allow(app, hook)
    m = hooked(client, hook)
    app.config["WEBHOOK_POLL_S"] = 60.0
    deliverers()
    time.sleep(0.3)  # its first round is over: from now on only a wake-up brings the next
    for ply, move in enumerate(["C3", "B2 B3", "C2 C4 D3"]):
        assert m.move(ply % 2, move, ply).status_code == 200
        until(lambda ply=ply: len(hook.accepted) == ply + 1, timeout=10, what="the post, woken")


def test_a_match_with_nothing_left_to_post_leaves_the_index(store: Store) -> None:
    """A deliverer reads only matches that may still have something to post: one created over
    (its record stays empty), one whose webhooks have every change up to its end, one expired."""
    hooks = [outbox.Hook("https://hooks.example.org/a", "json")]
    over, posted, gone, going = (f"07{c}" + "A" * 15 for c in "abcd")
    outbox.register(store, over, hooks, finished=True)
    outbox.register(store, posted, hooks)
    store.r.hset(outbox.hooks_key(store, posted), mapping={"end": 3, "c:0": 3})
    outbox.register(store, gone, hooks)
    store.r.delete(outbox.hooks_key(store, gone))
    outbox.register(store, going, hooks)
    client = next(c for c, shards in store.masters().values() if 7 in shards)
    assert [m for m, _, _ in outbox.pending(store, client, [7])] == [going]
    assert store.r.smembers(outbox.index_key(store, 7)) == {going}


@ADMIN
def test_the_umpire_controls_are_posted_too(
    client: FlaskClient, app: Flask, receivers: Callable[..., Receiver], deliverers: Callable[[], Deliverer]
) -> None:
    hook = receivers("json")
    allow(app, hook)
    m = hooked(client, hook)
    umpire = {"Authorization": f"Bearer {m.created['umpire']}"}
    deliverers()
    assert m.move(0, "C3", 0).status_code == 200
    assert client.post(f"/v1/matches/{m.id}/pause", headers=umpire).status_code == 200
    assert client.post(f"/v1/matches/{m.id}/resume", headers=umpire).status_code == 200
    assert m.move(1, "B2 B3", 1).status_code == 200
    until(lambda: len(hook.accepted) >= 4, what="four posts")
    assert not hook.problems
    kinds = [[e["type"] for e in a["body"]["events"]] for a in hook.accepted]
    assert kinds == [["move"], ["pause"], ["resume"], ["move"]]
    assert all(a["body"]["announcements"] for a in hook.accepted)


@ADMIN
def test_a_post_over_the_size_cap_is_given_up_unsent(
    client: FlaskClient, app: Flask, receivers: Callable[..., Receiver], deliverers: Callable[[], Deliverer]
) -> None:
    big, small = receivers("discord"), receivers("slack")
    allow(app, big, small)
    m = hooked(client, big, small)
    app.config["WEBHOOK_MAX_BYTES"] = 8000  # a Discord post carries a PNG of tens of KB; a Slack one, a few KB of text
    deliverers()
    assert m.move(0, "C3", 0).status_code == 200
    seen = settled_status(client, m, 1)["webhooks"]
    assert big.tries == [] and [(w["delivered"], w["failed"]) for w in seen] == [(0, 1), (1, 0)]
    assert "WEBHOOK_MAX_BYTES" in seen[0]["last_error"]["error"] and seen[0]["last_error"]["gave_up"]
    # without PUBLIC_URL a Slack post has no picture: an incoming webhook takes no file
    assert [b["type"] for b in small.accepted[0]["blocks"]] == ["section"]
