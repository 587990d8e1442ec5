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
import os
import random
import signal
import socket
import subprocess
import sys
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
    assert discord[3]["png"] is None  # a refused attempt changed nothing: no picture (issue 34 item 6)
    # the picture's description says the position it shows, by its ply and the move, not the record's count
    # (issue 35 item 10: "The board after change 43" at ply 38)
    assert discord[0]["alt"].startswith("The board of Catchup") and "ply 1, after Ann plays C3" in discord[0]["alt"]
    assert "ply 2, after Bob plays" in discord[1]["alt"] and "change" not in discord[1]["alt"]
    # Slack: the picture by its public address, the ply of board.png
    slack = hooks[1].accepted
    assert [b["type"] for b in slack[3]["blocks"]] == ["section"] and "illegal" in slack[3]["text"]
    for k, a in enumerate(slack):
        if k == 3:
            continue  # the refused attempt: no picture
        # The position's own ply; the resignation, an end without a move, is the finished
        # match's latest position (no ply: it kept ply 3, which names the position before it).
        ply = k + 1 if k < 3 else None
        query = "" if ply is None else f"?ply={ply}"
        image = a["blocks"][1]
        assert image["image_url"] == f"https://umpire.example.org/v1/matches/{m.id}/board.png{query}", image
        picture = client.get(f"/v1/matches/{m.id}/board.png", query_string={} if ply is None else {"ply": ply})
        assert picture.status_code == 200 and picture.data.startswith(PNG_MAGIC)
    # json: the event stream's events, the record's changes
    bodies = [a["body"] for a in hooks[2].accepted]
    assert [b["seq"] for b in bodies] == [b["last_seq"] for b in bodies] == [1, 2, 3, 4, 5]
    assert [b["picture"] is None for b in bodies] == [False, False, False, True, False]
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
    assert outbox.claim(store, match_id, 0, 0, 1, "a") == (1, 1)
    assert outbox.claim(store, match_id, 0, 0, 1, "b") == (0, 1)  # leased by a
    assert outbox.claim(store, match_id, 0, 1, 1, "b") == (0, 0)  # not the webhook's next change
    assert not outbox.renew(store, match_id, 0, 0, "b") and outbox.renew(store, match_id, 0, 0, "a")
    assert not outbox.finish(store, match_id, 0, 0, "b", "ok")  # b holds no lease
    assert outbox.finish(store, match_id, 0, 0, "a", "ok")
    assert outbox.claim(store, match_id, 0, 0, 1, "b") == (0, 0)  # posted already
    assert outbox.claim(store, match_id, 0, 1, 3, "b") == (1, 3)  # three refused attempts as one post
    assert outbox.finish(store, match_id, 0, 1, "b", "retry", 0, {"seq": 2}, 3)
    assert outbox.claim(store, match_id, 0, 1, 5, "a") == (0, 3)  # its retry covers the same three
    assert outbox.claim(store, match_id, 0, 1, 3, "a") == (2, 3)
    assert outbox.finish(store, match_id, 0, 1, "a", "ok", entries=3, refusals=True)
    raw = outbox.read(store, match_id)
    assert (raw["c:0"], raw["ok:0"], "n:0" in raw, int(raw["rp:0"]) > 0) == ("4", "4", False, True)


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


# -- receivers that misbehave (issue 34) ----------------------------------------------------


class Raw:
    """A receiver on a raw socket of loopback, for what a WSGI server cannot do: it reads each
    request whole, then answers as ``how`` says - ``ok`` (204), ``trickle`` (``HTTP/1.1 200 OK``
    then one header byte every ``every_s``, for ``for_s`` at most), ``silent`` (reads, answers
    nothing, for ``for_s`` at most), or ``answer`` (the bytes of ``reply`` as they are).  ``plan``
    gives the first requests' ``how``; then ``how``.  Keeps each request's ``X-Umpire-Delivery``,
    and the most connections it held at once."""

    def __init__(self, how: str = "ok", plan: list[str] | None = None, every_s: float = 0.3, for_s: float = 30.0) -> None:
        self.how, self.plan, self.every_s, self.for_s = how, list(plan or []), every_s, for_s
        self.reply = b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n"
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.tries: list[str] = []  # X-Umpire-Delivery of each request read whole
        self.arrived: dict[str, float] = {}  # the first time each delivery was read whole (monotonic)
        self.bodies: list[bytes] = []
        self.open = self.most = 0
        self.on_request: Callable[[str], None] | None = None  # called once the request is read, before the answer
        self.on_answered: Callable[[str], None] | None = None  # called once the answer is sent
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    fmt = "json"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/webhooks/123/{TOKEN}"

    def serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self.handle, args=(conn,), daemon=True).start()

    def handle(self, conn: socket.socket) -> None:
        with self.lock:
            self.open += 1
            self.most = max(self.most, self.open)
        try:
            conn.settimeout(10)
            while not self.stop.is_set():  # requests on the connection, one after another (keep-alive)
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    head += chunk
                top, _, body = head.partition(b"\r\n\r\n")
                fields = dict(
                    line.split(": ", 1) for line in top.decode("latin-1").split("\r\n")[1:] if ": " in line
                )  # fmt: skip
                size = int(fields.get("Content-Length", "0"))
                while len(body) < size:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    body += chunk
                delivery = fields.get("X-Umpire-Delivery", "")
                with self.lock:
                    self.tries.append(delivery)
                    self.arrived.setdefault(delivery, time.monotonic())
                    self.bodies.append(body)
                    how = self.plan.pop(0) if self.plan else self.how
                if self.on_request is not None:
                    self.on_request(delivery)
                if how == "ok":
                    conn.sendall(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
                    if self.on_answered is not None:
                        self.on_answered(delivery)
                elif how == "answer":
                    conn.sendall(self.reply)
                elif how == "trickle":
                    conn.sendall(b"HTTP/1.1 200 OK\r\n")
                    end = time.monotonic() + self.for_s
                    while time.monotonic() < end and not self.stop.wait(self.every_s):
                        conn.sendall(b"X")  # a header's name that never ends
                    return
                else:  # silent
                    self.stop.wait(self.for_s)
                    return
        except OSError:
            return
        finally:
            with self.lock:
                self.open -= 1
            conn.close()

    def close(self) -> None:
        self.stop.set()
        self.sock.close()
        self.thread.join(5)


@pytest.fixture
def raw() -> Iterator[Callable[..., Raw]]:
    made: list[Raw] = []

    def make(how: str = "ok", **kw: Any) -> Raw:
        made.append(Raw(how, **kw))
        return made[-1]

    yield make
    for r in made:
        r.close()


def allow_raw(app: Flask, *receivers: Raw | Receiver) -> None:
    app.config["WEBHOOK_ALLOW"] = ",".join(f"127.0.0.1:{r.port}" for r in receivers)


def raw_match(client: FlaskClient, *hooks: Raw | Receiver, size: int = 3) -> Match:
    body = {"game": "catchup", "options": {"size": size}, "webhooks": [{"url": h.url, "format": h.fmt} for h in hooks]}
    r = client.post("/v1/matches", json=body)
    assert r.status_code == 201, r.json
    return Match(client, r.json["match_id"], (r.json["seats"]["0"], r.json["seats"]["1"]), r.json)


# -- 3. inputs that once left a webhook stuck -------------------------------------------------


@ADMIN
@pytest.mark.parametrize("retry_after", [b"\xb2", "¹²".encode(), b"1e9", b"-5", b"Wed, 32 Foo 2025 99:99:99 GMT"])
def test_a_malformed_retry_after_is_one_failed_try(
    client: FlaskClient, app: Flask, raw: Callable[..., Raw], deliverers: Callable[[], Deliverer], retry_after: bytes
) -> None:
    """A 429 whose Retry-After is no number nor date (``²`` read as latin-1 is a "digit" to Python)
    is a failed try like any 429: recorded, tried again after the backoff, then posted."""
    hook = raw(plan=["answer"])
    hook.reply = b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: " + retry_after + b"\r\nContent-Length: 0\r\n\r\n"
    allow_raw(app, hook)
    m = raw_match(client, hook)
    deliverers()
    assert m.move(0, "C3", 0).status_code == 200
    seen = settled_status(client, m, 1)["webhooks"][0]
    assert (seen["delivered"], seen["failed"], seen["pending"]) == (1, 0, 0)
    assert [(f["status"], f["attempt"], f["gave_up"]) for f in seen["failures"]] == [(429, 1, False)]
    assert hook.tries == [f"{m.id}:1"] * 2


@pytest.mark.app_config(WEBHOOK_ALLOW="hooks.example.org")
@pytest.mark.parametrize(
    "url",
    [
        "https://hooks.example.org/api/webhooks/1/a\x7fb",  # DEL: httpx refuses it (InvalidURL)
        "https://hooks.example.org/a\x00",
        "https://xn--zz.hooks.example.org/a",  # not an IDNA label
        "https://hooks.example.org:99999/a",  # no port
        "https://hooks.example.org\\@evil.example/a",  # the two parsers would not agree on the host
    ],
)
def test_a_url_the_http_client_refuses_is_refused_at_creation(client: FlaskClient, url: str) -> None:
    r = client.post("/v1/matches", json={"game": "catchup", "webhooks": [{"url": url, "format": "json"}]})
    assert r.status_code == 422 and r.json["error"]["code"] == "webhook_refused", r.json
    assert r.json["error"]["details"]["field"] == "webhooks.0.url"


@pytest.mark.parametrize("seed", range(4))
def test_every_url_allowed_at_creation_is_one_the_client_builds(seed: int) -> None:
    """Random URLs on an allowed host, with any character: each one ``refusal`` lets through
    is a request the deliverer's client builds, to the host and port that were allowed."""
    import httpx

    rnd = random.Random(seed)
    allow = outbox.allowed("hooks.example.org,127.0.0.1:8080")
    alphabet = [chr(c) for c in range(0, 0x80)] + ["é", "²", "\u2028", "\ufeff", "%", "@", "\\", ":", "#", "?", "[", "]"]
    let_through = 0
    for _ in range(2000):
        head = rnd.choice(["https://hooks.example.org", "http://127.0.0.1:8080", "https://HOOKS.example.org:443"])
        url = head + "/" + "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 12)))
        if outbox.refusal(url, allow) is not None:
            continue
        let_through += 1
        built = httpx.Request("POST", url)
        assert (built.url.host, built.url.port or {"http": 80, "https": 443}[built.url.scheme]) in {
            ("hooks.example.org", 443), ("127.0.0.1", 8080)
        }, url  # fmt: skip
    assert let_through > 100


@ADMIN
def test_a_stored_url_the_client_refuses_is_tried_then_given_up(
    client: FlaskClient, app: Flask, store: Store, deliverers: Callable[[], Deliverer], caplog: pytest.LogCaptureFixture
) -> None:
    """A match made before URLs were checked as the client checks them: its URL is checked again
    before every post, as the allowed hosts are, so each change is given up at once (no try
    could ever send it), recorded, and the webhook goes on: no stuck ``pending``, no traceback."""
    app.config["WEBHOOK_ALLOW"] = "hooks.example.org"
    app.config.update(FAST)
    app.config["WEBHOOK_TRIES"] = 3
    r = client.post("/v1/matches", json={"game": "catchup", "options": {"size": 3}, "webhooks": [HOOK]})
    m = Match(client, r.json["match_id"], (r.json["seats"]["0"], r.json["seats"]["1"]), r.json)
    bad = outbox.Hook("https://hooks.example.org/api/webhooks/1/a\x7fb", "json")
    outbox.register(store, m.id, [bad])  # as stored then
    deliverers()
    assert m.move(0, "C3", 0).status_code == 200
    assert m.move(1, "B2 B3", 1).status_code == 200
    seen = settled_status(client, m, 2)["webhooks"][0]
    assert (seen["delivered"], seen["failed"], seen["pending"]) == (0, 2, 0)
    tried = [(f["seq"], f["attempt"], f["status"], f["gave_up"]) for f in reversed(seen["failures"])]
    assert tried == [(1, 1, None, True), (2, 1, None, True)]
    assert all("not a valid http or https URL" in f["error"] for f in seen["failures"])
    assert not [r for r in caplog.records if r.exc_info]


@ADMIN
def test_any_error_while_making_a_post_is_a_failed_try(
    client: FlaskClient, app: Flask, receivers: Callable[..., Receiver], deliverers: Callable[[], Deliverer],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """A post that cannot be made (here: the formats fail on the first change) fails its try,
    recorded and tried again as any failed try, then given up; the next change is posted."""
    from service.matches import webhook_formats

    made = webhook_formats.payload

    def payload(change: Any, *args: Any, **kw: Any) -> Any:
        if change.seq == 1:
            raise RuntimeError("the views could not draw it")
        return made(change, *args, **kw)

    monkeypatch.setattr(webhook_formats, "payload", payload)
    hook = receivers("json")
    allow(app, hook)
    app.config["WEBHOOK_TRIES"] = 2
    m = hooked(client, hook)
    deliverers()
    assert m.move(0, "C3", 0).status_code == 200
    assert m.move(1, "B2 B3", 1).status_code == 200
    seen = settled_status(client, m, 2)["webhooks"][0]
    assert (seen["delivered"], seen["failed"], seen["pending"]) == (1, 1, 0)
    assert [(f["seq"], f["attempt"], f["gave_up"]) for f in reversed(seen["failures"])] == [(1, 1, False), (1, 2, True)]
    assert "RuntimeError" in seen["failures"][0]["error"]
    assert [a["delivery"] for a in hook.accepted] == [f"{m.id}:2"]


def test_retry_after_reads_seconds_and_dates_and_nothing_else() -> None:
    import email.utils

    from service.matches.webhook_send import retry_after

    soon = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert retry_after("120") == 120 and retry_after(" 7 ") == 7 and 25 < retry_after(soon) <= 30
    assert retry_after(email.utils.formatdate(time.time() - 30, usegmt=True)) == 0  # a date gone by: no wait
    for bad in (None, "", "²", "¹²", "٣", "1.5", "-5", "1e9", "Wed, 32 Foo 2025 99:99:99 GMT", "\x00"):
        assert retry_after(bad) == 0, bad


# -- 1. one deadline a try, and no host holds every post ------------------------------------


@ADMIN
def test_a_receiver_that_trickles_its_headers_is_cut_at_the_deadline(
    client: FlaskClient, app: Flask, raw: Callable[..., Raw], deliverers: Callable[[], Deliverer]
) -> None:
    """``HTTP/1.1 200 OK`` then a header byte every 0.3 s, for 30 s: each read is quick, the try is
    not.  It is cut at WEBHOOK_TIMEOUT_S (1.5 s) for connecting, sending and the whole answer,
    recorded as a timeout, and the change is posted by the next try."""
    hook = raw(plan=["trickle"], every_s=0.3, for_s=30)
    allow_raw(app, hook)
    m = raw_match(client, hook)
    app.config["WEBHOOK_TIMEOUT_S"] = 1.5
    deliverers()
    assert m.move(0, "C3", 0).status_code == 200
    until(lambda: status(client, m)["webhooks"][0]["delivered"] == 1, timeout=12, what="the post after the cut")
    seen = status(client, m)["webhooks"][0]
    assert [(f["seq"], f["attempt"], f["status"]) for f in seen["failures"]] == [(1, 1, None)]
    assert "timed out" in seen["failures"][0]["error"]
    assert hook.tries == [f"{m.id}:1"] * 2


@ADMIN
def test_stalled_hosts_hold_a_few_tries_each_and_never_another_hosts_post(
    client: FlaskClient, app: Flask, raw: Callable[..., Raw], receivers: Callable[..., Receiver],
    deliverers: Callable[[], Deliverer],
) -> None:  # fmt: skip
    """Ten matches whose two webhooks never answer (on two hosts), each with a change to post: each
    stalled host holds WEBHOOK_PER_HOST tries at most, the rest wait for it, and a match posting
    elsewhere is posted at once, long before any stalled try ends (20 s)."""
    stalled = [raw("silent", for_s=25), raw("silent", for_s=25)]
    healthy = receivers("json")
    allow_raw(app, *stalled, healthy)
    crowd = [raw_match(client, *stalled) for _ in range(10)]
    app.config.update(WEBHOOK_PER_HOST=2, WEBHOOK_TIMEOUT_S=20.0)
    deliverers()
    for m in crowd:
        assert m.move(0, "C3", 0).status_code == 200
    until(lambda: all(len(s.tries) >= 2 for s in stalled), what="both stalled hosts to hold their tries")
    m = raw_match(client, healthy)
    started = time.monotonic()
    assert m.move(0, "C3", 0).status_code == 200
    until(lambda: len(healthy.accepted) == 1, timeout=15, what="the healthy post")
    assert time.monotonic() - started < 10  # not behind a stalled try (each holds 20 s)
    assert [s.most for s in stalled] == [2, 2] and [len(s.tries) for s in stalled] == [2, 2]


# -- 5. a deliverer killed mid-post ------------------------------------------------------------


@pytest.fixture
def spawned(app: Flask, prefix: str, redis_url: str) -> Iterator[Callable[..., subprocess.Popen[bytes]]]:
    """``flask --app service deliver`` processes on the tests' Redis and key prefix (killed at the end)."""
    procs: list[subprocess.Popen[bytes]] = []

    def spawn(**settings: Any) -> subprocess.Popen[bytes]:
        env = {
            **os.environ,
            "REDIS_URL": redis_url,
            "REDIS_PREFIX": prefix,
            "REDIS_CLUSTER": "1" if app.config["REDIS_CLUSTER"] else "0",
            **{k: str(v) for k, v in FAST.items()},
            "WEBHOOK_ALLOW": app.config["WEBHOOK_ALLOW"],
            **{k: str(v) for k, v in settings.items()},
        }
        procs.append(subprocess.Popen([sys.executable, "-m", "flask", "--app", "service", "deliver"], env=env))
        return procs[-1]

    yield spawn
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait(10)


@ADMIN
def test_a_deliverer_killed_mid_post_is_taken_over_at_once(
    client: FlaskClient, app: Flask, raw: Callable[..., Raw], spawned: Callable[..., subprocess.Popen[bytes]]
) -> None:
    """SIGKILL the deliverer while the receiver holds its post (the receiver has the whole request):
    the one started next posts that change again within a few seconds, not after a two-minute
    lease, then goes on in order.  The same X-Umpire-Delivery both times (at least once)."""
    hook = raw(plan=["silent"], for_s=60)
    allow_raw(app, hook)
    m = raw_match(client, hook)
    first = spawned(WEBHOOK_TIMEOUT_S=60)
    assert m.move(0, "C3", 0).status_code == 200
    until(lambda: hook.tries == [f"{m.id}:1"], timeout=30, what="the first deliverer's post")
    first.send_signal(signal.SIGKILL)
    first.wait(10)
    spawned(WEBHOOK_TIMEOUT_S=60)
    restarted = time.monotonic()
    until(lambda: len(hook.tries) == 2, timeout=30, what="the post again, by the deliverer started next")
    assert time.monotonic() - restarted < 10  # its startup (the app, Redis) and the dead one's short lease
    assert hook.tries == [f"{m.id}:1"] * 2
    assert m.move(1, "B2 B3", 1).status_code == 200
    until(lambda: len(hook.tries) == 3, what="the next change")
    assert hook.tries[2] == f"{m.id}:2"
    until(lambda: status(client, m)["webhooks"][0]["delivered"] == 2, what="both counted")


@ADMIN
def test_a_deliverer_killed_right_after_the_2xx_posts_the_change_again_with_its_delivery_id(
    client: FlaskClient, app: Flask, raw: Callable[..., Raw], spawned: Callable[..., subprocess.Popen[bytes]]
) -> None:
    """The promise is at least once (issue 34 item 4): the receiver answers 204, and the deliverer
    dies before it reads that answer (stopped when the request arrived, killed once it was answered).
    The one started next posts the change again, with the same X-Umpire-Delivery (a receiver drops
    the repeat by it), within a few seconds; then the next change, in order."""
    hook = raw("ok")
    allow_raw(app, hook)
    m = raw_match(client, hook)
    first = spawned()
    hook.on_request = lambda delivery: first.send_signal(signal.SIGSTOP) if len(hook.tries) == 1 else None
    hook.on_answered = lambda delivery: first.send_signal(signal.SIGKILL) if len(hook.tries) == 1 else None
    assert m.move(0, "C3", 0).status_code == 200
    until(lambda: first.poll() is not None, timeout=30, what="the first deliverer, killed after the answer")
    assert hook.tries == [f"{m.id}:1"] and status(client, m)["webhooks"][0]["delivered"] == 0  # answered, not recorded
    spawned()
    restarted = time.monotonic()
    until(lambda: len(hook.tries) == 2, timeout=30, what="the change again")
    assert time.monotonic() - restarted < 10
    assert hook.tries == [f"{m.id}:1", f"{m.id}:1"]  # the same delivery id: the receiver's to drop
    assert m.move(1, "B2 B3", 1).status_code == 200
    until(lambda: status(client, m)["webhooks"][0]["delivered"] == 2, what="both counted once")
    assert hook.tries == [f"{m.id}:1", f"{m.id}:1", f"{m.id}:2"]


# -- 2. what a deliverer keeps -----------------------------------------------------------------


@ADMIN
def test_a_stuck_webhook_does_not_make_the_deliverer_keep_every_change(
    client: FlaskClient, app: Flask, raw: Callable[..., Raw], receivers: Callable[..., Receiver],
    deliverers: Callable[[], Deliverer], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """One webhook stuck on the first change (500 on every try, tried again every 50 ms) and one that
    works, over 80 changes (the umpire pausing and resuming): the working one gets all 80, and the
    deliverer never keeps more than KEPT_BYTES of changes made (40 KB here: a pause's post has no
    picture since issue 35 item 11, about 2 KB a change), nor more than HEADS_KEPT positions of the
    match, where it kept every change from the stuck one on (issue 34: 67 -> 354 MiB over 3,000 changes)."""
    from service.matches import deliverer as module

    kept = 40_000
    monkeypatch.setattr(module, "KEPT_BYTES", kept)
    stuck, working = raw("answer"), receivers("discord")
    stuck.reply = b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"
    allow_raw(app, stuck, working)
    app.config.update(WEBHOOK_TRIES=10**6, WEBHOOK_BACKOFF_S=0.05, WEBHOOK_BACKOFF_MAX_S=0.05)
    m = raw_match(client, stuck, working)
    umpire = {"Authorization": f"Bearer {m.created['umpire']}"}
    d = deliverers()
    most = (0, 0, 0)
    for k in range(40):
        assert client.post(f"/v1/matches/{m.id}/pause", headers=umpire).status_code == 200
        assert client.post(f"/v1/matches/{m.id}/resume", headers=umpire).status_code == 200
        if k % 4 == 3:
            until(lambda k=k: len(working.accepted) >= 2 * k, timeout=30, what="the working webhook to keep up")
        count, size = d.kept_size()
        heads = max((len(w.heads) for w in list(d.walkers.values())), default=0)
        most = max(most, (count, size, heads))
    until(lambda: status(client, m)["webhooks"][1]["delivered"] == 80, timeout=60, what="every change to the working one")
    seen = status(client, m)["webhooks"]
    assert (seen[0]["delivered"], seen[0]["pending"]) == (0, 80) and len(set(stuck.tries)) == 1 and len(stuck.tries) > 5
    assert (seen[1]["delivered"], seen[1]["pending"]) == (80, 0)
    count, size = d.kept_size()
    assert most[2] <= module.HEADS_KEPT, most
    one = max(c.kept_bytes() for c in d.kept.changes.values())  # a change grows its picture after it is kept
    assert size <= kept + 2 * one and most[1] <= kept + 2 * one, (count, size, most, one)
    assert 3 <= count < 80 and most[0] < 80, (count, size, most)


# -- 6. refused attempts -----------------------------------------------------------------------


def _refuse(m: Match, seat: int, ply: int, times: int) -> None:
    """``times`` refused attempts of ``seat`` (C3 is taken): each a record entry while the
    match's record takes them (a 429 after a few a turn, where the server bounds them)."""
    for _ in range(times):
        r = m.move(seat, "C3", ply)
        assert r.status_code in (422, 429), r.json


def _spans(bodies: list[Json]) -> list[tuple[int, int]]:
    return [(b["seq"], b["last_seq"]) for b in bodies]


@pytest.mark.app_config(ADMIN_TOKEN="admin-token", WEBHOOK_REFUSALS_S=60.0)
def test_refused_attempts_are_one_post_a_turn_without_a_picture(
    client: FlaskClient, app: Flask, receivers: Callable[..., Receiver], deliverers: Callable[[], Deliverer]
) -> None:
    """Five refused attempts, a move, four more, a move: the first refused attempt is posted at once
    (none for a minute: WEBHOOK_REFUSALS_S), the others wait for their turn to end and go as one
    post, before the move; every record entry is in exactly one post, in order, and the refused
    attempts' posts carry no picture (issue 34 item 6)."""
    hooks = [receivers("json"), receivers("discord")]
    allow(app, *hooks)
    m = hooked(client, *hooks, players=["Ann", "Bob"])
    deliverers()
    assert m.move(0, "C3", 0).status_code == 200
    until(lambda: all(len(h.accepted) == 1 for h in hooks), what="the first move's post")
    _refuse(m, 1, 1, 5)
    assert m.move(1, "B2 B3", 1).status_code == 200
    _refuse(m, 0, 2, 4)
    assert m.move(0, "C2 C4 D3", 2).status_code == 200
    record = m.record()["moves"]
    kinds = [e["kind"] for e in record]
    until(lambda: status(client, m)["webhooks"][0]["delivered"] == len(record), what="every change posted")
    until(lambda: status(client, m)["webhooks"][1]["delivered"] == len(record), what="every change posted")
    bodies = [a["body"] for a in hooks[0].accepted]
    spans = _spans(bodies)
    assert [k for s, e in spans for k in range(s, e + 1)] == list(range(1, len(record) + 1))  # each once, in order
    refusals = [(s, e) for s, e in spans if kinds[s - 1] == "illegal"]
    assert all(kind == "illegal" for s, e in refusals for kind in kinds[s - 1 : e])
    assert 2 <= len(refusals) <= 3, spans  # turn 2: the first at once, the rest when the turn ended; turn 3: one
    assert len(spans) == len(refusals) + kinds.count("move")
    for body in bodies:
        assert (body["picture"] is None) == (kinds[body["seq"] - 1] == "illegal")
    discord = hooks[1].accepted  # its own posts: when refused attempts join one post is a matter of timing
    starts = [int(a["delivery"].split(":")[1]) for a in discord]
    assert starts[0] == 1 and starts == sorted(set(starts))  # in order, once each
    spans = list(zip(starts, [*(k - 1 for k in starts[1:]), len(record)], strict=True))
    assert len([1 for s, _ in spans if kinds[s - 1] == "illegal"]) <= 3
    assert all(kind == "illegal" for s, e in spans if kinds[s - 1] == "illegal" for kind in kinds[s - 1 : e])
    assert [a["png"] is None for a in discord] == [kinds[s - 1] == "illegal" for s in starts]
    for (s, e), post in zip(spans, discord, strict=True):
        if e - s + 1 > 3:  # three refused attempts announced one by one, the rest counted
            assert f"and {e - s + 1 - 3} more refused attempt" in post["text"], post["text"]
        if kinds[s - 1] == "illegal":
            assert post["text"].count("is refused") == min(3, e - s + 1), post["text"]


@pytest.mark.app_config(ADMIN_TOKEN="admin-token", WEBHOOK_REFUSALS_S=1.5)
def test_refused_attempts_while_a_turn_runs_wait_for_the_window(
    client: FlaskClient, app: Flask, receivers: Callable[..., Receiver], deliverers: Callable[[], Deliverer]
) -> None:
    """A seat that keeps making refused attempts and never moves: one post at once, then the
    others as one post once WEBHOOK_REFUSALS_S (1.5 s) has passed, not one post each."""
    hook = receivers("json")
    allow(app, hook)
    m = hooked(client, hook)
    deliverers()
    assert m.move(0, "C3", 0).status_code == 200
    _refuse(m, 1, 1, 1)
    until(lambda: len(hook.accepted) == 2, what="the first refused attempt, at once")
    first = time.monotonic()
    _refuse(m, 1, 1, 3)
    record = m.record()["moves"]
    until(lambda: status(client, m)["webhooks"][0]["delivered"] == len(record), what="the others")
    assert time.monotonic() - first >= 1.0  # they waited for the window (1.5 s from the first post)
    assert _spans([a["body"] for a in hook.accepted]) == [(1, 1), (2, 2), (3, len(record))]


@ADMIN
def test_a_control_s_post_has_a_picture_only_when_the_board_changed(
    client: FlaskClient, app: Flask, receivers: Callable[..., Receiver], deliverers: Callable[[], Deliverer]
) -> None:
    """Issue 35 item 11: a pause, the time given and the resumption each posted the whole board again, three
    identical pictures for one interruption.  A change is pictured when the position changed: a move, a
    take-back (the position returned to), an end; not a control of the clocks."""
    hook = receivers("discord")
    allow(app, hook)
    m = hooked(client, hook, players=["Ann", "Bob"])
    umpire = {"Authorization": f"Bearer {m.created['umpire']}"}
    deliverers()
    assert m.move(0, "C3", 0).status_code == 200
    assert m.move(1, "A1 A2", 1).status_code == 200
    assert client.post(f"/v1/matches/{m.id}/pause", json={"reason": "Bob's slip: A2"}, headers=umpire).status_code == 200
    assert client.post(f"/v1/matches/{m.id}/add-time", json={"seat": 1, "seconds": 5}, headers=umpire).status_code == 200
    assert client.post(f"/v1/matches/{m.id}/takeback", headers=umpire).status_code == 200
    assert client.post(f"/v1/matches/{m.id}/resume", headers=umpire).status_code == 200
    until(lambda: len(hook.accepted) >= 6, what="six posts")
    assert not hook.problems
    pictured = [a["png"] is not None for a in hook.accepted]
    assert pictured == [True, True, False, False, True, False]
    said = [a["text"] for a in hook.accepted]
    assert "The umpire paused the clocks: Bob's slip: A2." in said[2]
    takeback = said[4]
    assert "The umpire took back Bob's move A1 A2: Bob is to move again." in takeback and "ply 1" in takeback
    assert hook.accepted[4]["png"].startswith(PNG_MAGIC) and "ply 1" in hook.accepted[4]["alt"]


@ADMIN
def test_a_game_reopened_by_a_take_back_is_posted_on_to_its_new_end(
    client: FlaskClient, app: Flask, store: Store, receivers: Callable[..., Receiver], deliverers: Callable[[], Deliverer]
) -> None:
    """The end of the game once posted, the match left the deliverers' index; a take-back of the move that
    ended it reopens the game (service/matches/commit.lua), and what follows is posted too."""
    hook = receivers("json")
    allow(app, hook)
    cells = [c for c in GAMES["catchup"].legal_moves(GAMES["catchup"].new({"size": 3})).moves]
    position = {c: i % 2 for i, c in enumerate(cells[:-1])}
    m = hooked(client, hook, options={"size": 3, "position": position})
    umpire = {"Authorization": f"Bearer {m.created['umpire']}"}
    deliverers()
    ply = m.get().json["ply"]
    assert m.move(0, cells[-1], ply).json["state"]["status"] == "finished"
    until(lambda: len(hook.accepted) >= 1, what="the end posted")
    until(lambda: not store.r.sismember(outbox.index_key(store, shard_of(m.id)), m.id), what="the match out of the index")
    assert client.post(f"/v1/matches/{m.id}/takeback", headers=umpire).json["state"]["status"] == "ongoing"
    assert m.resign(0).status_code == 200
    until(lambda: len(hook.accepted) >= 3, what="the take-back and the new end posted")
    kinds = [[e["type"] for e in a["body"]["events"]] for a in hook.accepted]
    assert kinds == [["move", "end"], ["takeback"], ["resign", "end"]]
    assert not hook.problems
