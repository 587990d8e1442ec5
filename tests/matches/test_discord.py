"""A death match run in a Discord channel with slash commands alone (issue 36; service/discord/).

Discord cannot be reached from here, so these tests play Discord's part by its published contract:
a stand-in on loopback (tests/discordkit.py) signs each interaction with an Ed25519 key the test
makes, posts it to the real app (create_app on the real Redis of tests/matches/conftest.py, the
clocks on a fake clock), marks the answer as given, and receives what the service sends Discord:
the picture that edits an answer (multipart), follow-ups, command registrations, and a channel
webhook's posts.  Every JSON sent to Discord, and every interaction response, is compiled against
``discord-api-types`` with ``tsc --strict`` (tests/discordkit.py ``typecheck``).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from discordkit import APPLICATION, BOT_TOKEN, Signer, StandIn, typecheck, until
from flask import Flask
from flask.testing import FlaskClient
from gamekit import random_move
from matchkit import FakeClock, cleanup
from openapi_check import spec_checker_instance

from engine.registry import GAMES, PRESETS
from service import create_app
from service.discord import courier
from service.discord.commands import SUB_COMMAND, definitions
from service.discord.courier import Discord, Full, Lane
from service.matches import db

Json = dict[str, Any]
ON_CLUSTER = os.environ.get("MATCH_TESTS_CLUSTER") == "1"
ROOT = Path(__file__).resolve().parent.parent.parent
GUILD, CHANNEL = "900000000000000001", "800000000000000001"
USERS = {"host": "7000000000000000001", "ann": "7000000000000000002", "bob": "7000000000000000003", "eve": "7000000000000000004"}
NAMES = {"host": "Hostess", "ann": "Ann @everyone", "bob": "**Bob**", "eve": "Eve"}  # names that would ping or bold, unescaped
OPTIONS: dict[str, Json] = {
    "catchup": {"size": 3},
    "bug": {},
    "crystal": {"seed": "discord"},
    "plur": {"size": 3},
    "too": {"size": 3},
    "product": {"size": 3},
}
TURN_S, BANK_S = 60, 30


@pytest.fixture
def standin() -> Iterator[StandIn]:
    s = StandIn().start()
    yield s
    s.stop()


@pytest.fixture
def signer() -> Signer:
    return Signer()


def make_app(redis_url: str, prefix: str, tmp_path: Path, standin: StandIn, signer: Signer, **more: Any) -> Flask:
    return create_app(
        {
            "TESTING": True, "REDIS_URL": redis_url, "REDIS_CLUSTER": ON_CLUSTER, "REDIS_PREFIX": prefix,
            "DATA_DIR": str(tmp_path), "CREATE_RATE_LIMIT": "off", "RENDER_RATE_LIMIT": "off",
            "DISCORD_PUBLIC_KEY": signer.public_hex, "DISCORD_APPLICATION_ID": APPLICATION, "DISCORD_API": standin.api,
            "DISCORD_BOT_TOKEN": BOT_TOKEN, "DISCORD_TIMEOUT_S": 10.0, "WEBHOOK_ALLOW": f"127.0.0.1:{standin.port}",
            **more,
        }
    )  # fmt: skip


@pytest.fixture
def discord_app(
    redis_url: str, prefix: str, tmp_path: Path, standin: StandIn, signer: Signer, fake_clock: FakeClock
) -> Iterator[Flask]:
    app = make_app(redis_url, prefix, tmp_path, standin, signer, MATCH_CLOCK=fake_clock)
    yield app
    courier.close(app)
    db.close(app)
    cleanup(redis_url, prefix, ON_CLUSTER)


def option_types() -> dict[tuple[str, ...], dict[str, int]]:
    """Each command's (and subcommand's) options and their types, as registered."""
    out: dict[tuple[str, ...], dict[str, int]] = {}
    for top in definitions():
        subs = [o for o in top["options"] if o["type"] == SUB_COMMAND]
        for sub in subs:
            out[(top["name"], sub["name"])] = {o["name"]: o["type"] for o in sub["options"]}
        if not subs:
            out[(top["name"],)] = {o["name"]: o["type"] for o in top["options"]}
    return out


class Channel:
    """A server's channel as Discord carries it: each command an interaction, signed, posted to
    the app, its answer given to the stand-in (so that it may then be edited)."""

    ids = itertools.count(1300000000000000000)
    types = option_types()

    def __init__(self, client: FlaskClient, signer: Signer, standin: StandIn, channel: str = CHANNEL) -> None:
        self.client, self.signer, self.standin, self.channel = client, signer, standin, channel
        self.responses: list[tuple[str, Any]] = []
        self.last_body = b""
        self.roles: dict[str, list[str]] = {}  # the server's roles each user holds

    def interaction(self, who: str, path: tuple[str, ...], options: Json, kind: int = 2, focused: str | None = None) -> Json:
        known = self.types[path]
        assert set(options) <= set(known), (path, options)
        opts = [
            {
                "type": known[n],
                "name": n,
                "value": USERS.get(v, v) if known[n] == 6 else v,
                **({"focused": True} if n == focused else {}),
            }
            for n, v in options.items()
        ]
        if len(path) == 2:
            opts = [{"type": SUB_COMMAND, "name": path[1], "options": opts}]
        users = {USERS[v]: {"id": USERS[v], "username": v, "global_name": NAMES[v]} for v in options.values() if v in USERS}
        number = next(self.ids)
        person = {"id": USERS[who], "username": who, "global_name": NAMES[who]}
        return {
            "id": str(number), "application_id": APPLICATION, "type": kind, "token": f"token-{number}", "version": 1,
            "guild_id": GUILD, "channel_id": self.channel,
            "member": {"user": person, "roles": self.roles.get(who, []), "nick": None},
            "data": {"id": "1", "name": path[0], "type": 1, "options": opts, "resolved": {"users": users}},
        }  # fmt: skip

    def post(self, body: bytes, headers: dict[str, str]) -> Any:
        r = self.client.post("/v1/discord/interactions", data=body, headers=headers)
        return r

    def send(self, who: str, path: str, **options: Any) -> Json:
        """The command ``path`` (``"umpire pause"``) by ``who``: its answer (type 4 or 5), given to Discord."""
        sent = self.interaction(who, tuple(path.split()), options)
        body = json.dumps(sent).encode()
        self.last_body = body
        r = self.post(body, self.signer.headers(body))
        assert r.status_code == 200, r.get_data(as_text=True)
        answer: Json = r.get_json()
        assert answer["type"] in (4, 5), answer
        self.standin.answered(sent["token"])
        r.close()  # the answer has gone: what waits for it (the picture) may now edit it
        spec_checker_instance().check("POST", "/v1/discord/interactions", 200, r.content_type, answer)
        self.responses.append(("APIInteractionResponse", answer))
        return {**answer, "token": sent["token"], "id": sent["id"]}

    def suggest(self, who: str, path: str, focused: str, **options: Any) -> list[str]:
        sent = self.interaction(who, tuple(path.split()), options, kind=4, focused=focused)
        body = json.dumps(sent).encode()
        r = self.post(body, self.signer.headers(body))
        assert r.status_code == 200, r.get_data(as_text=True)
        answer: Json = r.get_json()
        assert answer["type"] == 8 and len(answer["data"]["choices"]) <= 25
        self.responses.append(("APIApplicationCommandAutocompleteResponse", answer))
        return [c["value"] for c in answer["data"]["choices"]]


def public(answer: Json) -> str:
    assert answer["type"] == 4 and not answer["data"].get("flags"), answer
    content: str = answer["data"]["content"]
    return content


def ephemeral(answer: Json) -> str:
    assert answer["type"] == 4 and answer["data"]["flags"] == 64, answer
    assert answer["data"]["allowed_mentions"] == {"parse": []}
    content: str = answer["data"]["content"]
    return content


def match_of(client: FlaskClient, match_id: str) -> Json:
    r = client.get(f"/v1/matches/{match_id}")
    assert r.status_code == 200, r.json
    found: Json = r.get_json()
    return found


def kinds(client: FlaskClient, match_id: str) -> list[str]:
    r = client.get(f"/v1/matches/{match_id}/moves")
    return [e["kind"] for e in r.get_json()["moves"]]


def seat_user(seat: int) -> str:
    return "ann" if seat == 0 else "bob"


# -- a whole match of each game -------------------------------------------------------------------


ENDS = {"catchup": "flag", "bug": "resign", "crystal": "adjudicate", "plur": "flag", "too": "resign", "product": "flag"}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(GAMES))
def test_a_whole_match_through_commands_alone(
    name: str, discord_app: Flask, standin: StandIn, signer: Signer, fake_clock: FakeClock, tmp_path: Path
) -> None:
    client = discord_app.test_client()
    chan = Channel(client, signer, standin)
    game = GAMES[name]
    clock = json.dumps({"preset": game.default_preset({}), "turn_s": TURN_S, "bank_s": BANK_S})
    made = chan.send("host", "match new", game=name, player1="ann", player2="bob", clock=clock, options=json.dumps(OPTIONS[name]))
    text = public(made)
    match_id = made["data"]["embeds"][0]["description"].split("`")[1]
    assert f"<@{USERS['ann']}>" in made["data"]["embeds"][0]["description"]  # who is who, as mentions that never ping
    assert made["data"]["allowed_mentions"] == {"parse": []}
    assert (
        "@everyone" not in text.replace("@\u200beveryone", "") and "Ann @\u200beveryone" in text
    )  # escaped as the posts escape it
    assert "\\*\\*Bob\\*\\*" in text
    first = standin.edits_of(made["token"])[0]  # the board's picture edits the answer
    assert first["png"] and first["payload"]["content"] == text

    # before the host's start nobody moves; nobody but the host starts
    to_move = match_of(client, match_id)["state"]["to_move"]
    assert "umpire's start" in ephemeral(chan.send(seat_user(to_move), "move", move="A1"))
    assert "Only the match's host" in ephemeral(chan.send("ann", "umpire start"))
    assert "started the clocks" in public(chan.send("host", "umpire start"))

    rnd = random.Random(name)
    played = 0
    for ply in range(4):
        m = match_of(client, match_id)
        if m["state"]["status"] == "finished":
            break
        mover = m["clock"]["may_move"]
        before = kinds(client, match_id)
        # a third user, and the player who is not to move, are refused politely, and nothing moves
        assert "You do not play in this match" in ephemeral(chan.send("eve", "move", move="A1"))
        assert ephemeral(chan.send(seat_user(1 - mover), "move", move="A1")) == (
            f"It is not your turn: <@{USERS[seat_user(mover)]}> is to move."
        )
        assert kinds(client, match_id) == before
        if ply == 0:  # what Discord's autocomplete offers the mover: legal beginnings of a move
            offered = chan.suggest(seat_user(mover), "move", "move", move="")
            steps = game.next_steps(game.load(m["state"]), []).steps
            assert offered and set(offered) <= {*steps, *(game.join_steps([s]) for s in steps)}
        move = random_move(game, game.load(m["state"]), rnd)
        answer = chan.send(seat_user(mover), "move", move=move)
        said = public(answer)  # the post of the position after the move: its heading names the new ply
        assert f"ply {m['ply'] + 1}:" in said and match_of(client, match_id)["ply"] == m["ply"] + 1
        edit = standin.edits_of(answer["token"])[0]
        assert edit["png"] and edit["payload"]["attachments"][0]["filename"] == "board.png"
        played += 1

    m = match_of(client, match_id)
    assert m["state"]["status"] == "ongoing" and played == 4
    # an illegal move: refused in public with its reason, recorded, and the clock still running
    mover = m["clock"]["may_move"]
    refused = chan.send(seat_user(mover), "move", move="Z99")
    text = public(refused)
    assert "Clock:" in text and "Z99" in text
    after = match_of(client, match_id)
    assert after["ply"] == m["ply"] and after["clock"]["deadline"] == m["clock"]["deadline"] is not None
    assert kinds(client, match_id)[-1] == "illegal"
    time.sleep(0.3)
    assert refused["token"] not in standin.edits  # the board did not change: no picture

    # a pause with a reason, time given, the clocks resumed
    paused = chan.send("host", "umpire pause", reason="a phone _call_")
    assert "The umpire paused the clocks: a phone \\_call\\_." in public(paused)  # the post's announcement, escaped
    assert client.get(f"/v1/matches/{match_id}/moves").get_json()["moves"][-1]["reason"] == "a phone _call_"
    assert "paused" in ephemeral(chan.send(seat_user(mover), "move", move=move))
    bank = match_of(client, match_id)["clock"]["seats"][str(mover)]["bank_s"]
    chan.send("host", "umpire addtime", player=seat_user(mover), seconds=30)
    assert match_of(client, match_id)["clock"]["seats"][str(mover)]["bank_s"] == bank + 30
    public(chan.send("host", "umpire resume"))
    assert kinds(client, match_id)[-3:] == ["pause", "add_time", "resume"]

    end = ENDS[name]
    if end == "flag" or name == "crystal":
        fake_clock.advance(TURN_S + BANK_S + 30 + 1)
        shown = public(chan.send("eve", "board"))  # anyone may look: the flag is seen by that read
        assert "flag" in kinds(client, match_id)
        if game.flag_rule == "loses":
            assert match_of(client, match_id)["state"]["status"] == "finished" and "wins" in shown
    if end == "resign":
        resigned = chan.send(seat_user(mover), "resign")
        assert "resign" in public(resigned).lower()
    if end == "adjudicate":
        assert "Only the match's host" in ephemeral(chan.send("bob", "umpire adjudicate", result="player1", reason="r"))
        judged = chan.send("host", "umpire adjudicate", result="player1", reason="agreed by both players")
        assert standin.edits_of(judged["token"])[0]["png"]
    final = match_of(client, match_id)
    assert final["state"]["status"] == "finished"
    assert "over" in ephemeral(chan.send("ann", "move", move="A1"))

    # a replayed interaction never plays twice (the last /move, signed and sent again)
    before = kinds(client, match_id)
    again = client.post("/v1/discord/interactions", data=chan.last_body, headers=signer.headers(chan.last_body))
    assert again.status_code == 409 and again.get_json()["error"]["code"] == "interaction_replayed"
    assert kinds(client, match_id) == before

    typecheck([*chan.responses, *standin.sent], tmp_path)
    assert standin.problems == [] and standin.refused == 0  # no edit before its answer


# -- what is refused before anything is read -------------------------------------------------------


def test_forged_stale_and_unsigned_interactions_are_refused(discord_app: Flask, signer: Signer, standin: StandIn) -> None:
    client = discord_app.test_client()
    ping = json.dumps({"id": "1", "application_id": APPLICATION, "type": 1, "token": "t", "version": 1}).encode()
    ok = client.post("/v1/discord/interactions", data=ping, headers=signer.headers(ping))
    assert ok.status_code == 200 and ok.get_json() == {"type": 1}  # PING -> PONG

    def refused(body: bytes, headers: dict[str, str], code: str) -> None:
        r = client.post("/v1/discord/interactions", data=body, headers=headers)
        assert r.status_code == 401 and r.get_json()["error"]["code"] == code, r.get_json()
        spec_checker_instance().check("POST", "/v1/discord/interactions", 401, r.content_type, r.get_json())

    refused(ping, {"Content-Type": "application/json"}, "invalid_signature")  # none
    other = Signer()  # another key: a forgery
    refused(ping, other.headers(ping), "invalid_signature")
    tampered = ping.replace(b'"t"', b'"u"')
    refused(tampered, signer.headers(ping), "invalid_signature")  # signed, then changed
    refused(ping, {**signer.headers(ping), "X-Signature-Ed25519": "zz" * 64}, "invalid_signature")
    now = int(time.time())
    refused(ping, signer.headers(ping, now - 301), "stale_interaction")  # older than DISCORD_MAX_AGE_S (300 s)
    refused(ping, signer.headers(ping, now + 301), "stale_interaction")  # or ahead of the server's clock
    assert client.post("/v1/discord/interactions", data=ping, headers=signer.headers(ping, now - 290)).status_code == 200
    bad = b'{"type": 2, "id": "5"}'
    r = client.post("/v1/discord/interactions", data=bad, headers=signer.headers(bad))
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "invalid_interaction"


def test_the_endpoint_is_off_without_a_public_key(redis_url: str, prefix: str, tmp_path: Path) -> None:
    app = create_app({"TESTING": True, "REDIS_URL": redis_url, "REDIS_PREFIX": prefix, "DATA_DIR": str(tmp_path)})
    r = app.test_client().post("/v1/discord/interactions", data=b"{}", headers={"Content-Type": "application/json"})
    assert r.status_code == 404 and r.get_json()["error"]["code"] == "not_found"
    assert "umpire.discord" not in app.extensions  # no thread, no client
    with pytest.raises(ValueError, match="DISCORD_PUBLIC_KEY"):
        create_app({"TESTING": True, "DISCORD_PUBLIC_KEY": "not hex", "DISCORD_APPLICATION_ID": "1"})
    db.close(app)


def test_a_replayed_move_plays_once_and_a_stranger_never_moves(
    discord_app: Flask, standin: StandIn, signer: Signer, tmp_path: Path
) -> None:
    client = discord_app.test_client()
    chan = Channel(client, signer, standin)
    made = chan.send("host", "match new", game="catchup", player1="ann", player2="bob", options='{"size": 3}', start="created")
    match_id = made["data"]["embeds"][0]["description"].split("`")[1]
    answer = chan.send("ann", "move", move="C3")
    assert "plays C3" in public(answer)
    body = chan.last_body
    for _ in range(2):
        again = client.post("/v1/discord/interactions", data=body, headers=signer.headers(body))
        assert again.status_code == 409
    assert kinds(client, match_id) == ["move"] and match_of(client, match_id)["ply"] == 1
    # another channel cannot reach this match, even by its id
    elsewhere = Channel(client, signer, standin, channel="800000000000000009")
    assert "no match" in ephemeral(elsewhere.send("bob", "move", move="B2", match=match_id))
    assert "no match in this channel" in ephemeral(elsewhere.send("bob", "board")).lower()
    # a second match while one is on: refused
    assert "still on" in ephemeral(chan.send("host", "match new", game="bug", player1="ann", player2="bob"))
    typecheck([*chan.responses, *elsewhere.responses, *standin.sent], tmp_path)


# -- answering within the 3 seconds -----------------------------------------------------------------


def test_a_command_not_judged_in_time_is_deferred_and_its_answer_edits_it(
    redis_url: str, prefix: str, tmp_path: Path, standin: StandIn, signer: Signer
) -> None:
    app = make_app(redis_url, prefix, tmp_path, standin, signer, DISCORD_ANSWER_S=0.0)  # every answer is "late"
    try:
        chan = Channel(app.test_client(), signer, standin)
        made = chan.send("host", "match new", game="catchup", player1="ann", player2="bob", options='{"size": 3}', ping=True)
        assert made["type"] == 5 and "data" not in made  # DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE
        edit = standin.edits_of(made["token"])[0]
        assert (
            edit["png"] and "Catchup" in edit["payload"]["content"] and "Match `" in edit["payload"]["embeds"][0]["description"]
        )
        started = chan.send("host", "umpire start")
        said = standin.edits_of(started["token"])[0]["payload"]
        assert said["allowed_mentions"] == {"parse": []} and "started the clocks" in said["content"]
        # an edit never notifies: the ping (the player to move, nobody else) is a follow-up message of its own
        until(lambda: started["token"] in standin.follow_ups, 10, "the ping")
        line = f"<@{USERS['ann']}>: your move."
        time.sleep(0.3)
        assert standin.follow_ups[started["token"]] == [
            {"content": line, "allowed_mentions": {"parse": [], "users": [USERS["ann"]]}}
        ]
        assert line not in said["content"]  # the channel reads the line once: in the ping, not in the edit too
        typecheck([*chan.responses, *standin.sent], tmp_path)
    finally:
        courier.close(app)
        db.close(app)
        cleanup(redis_url, prefix, ON_CLUSTER)


def test_an_edit_is_tried_again_after_429_within_its_deadline(discord_app: Flask, standin: StandIn, signer: Signer) -> None:
    chan = Channel(discord_app.test_client(), signer, standin)
    standin.plan = [429, 502]
    made = chan.send("host", "match new", game="plur", player1="ann", player2="bob", options='{"size": 3}')
    assert standin.edits_of(made["token"])[0]["png"]


def test_a_lane_refuses_work_past_its_bound() -> None:
    lane = Lane("t", 1, 1)
    hold = threading.Event()
    try:
        running = lane.submit(hold.wait)
        waiting = lane.submit(lambda: True)
        with pytest.raises(Full):
            lane.submit(lambda: True)
        hold.set()
        assert running.result(5) and waiting.result(5)
        until(lambda: lane.room._value == 2, 5, "the lane's room back")  # the bound's count, read in a test
        assert lane.submit(lambda: 7).result(5) == 7
    finally:
        hold.set()
        lane.close()


def test_a_discord_that_drips_its_answer_cannot_hold_a_call_past_its_deadline() -> None:
    """httpx and httpcore bound each read, not a whole call: a server sending a header byte every
    0.2 s would hold a plain client for ever.  The courier's call ends at its deadline."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    stop = threading.Event()

    def drip() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\n")
            while not stop.is_set():
                conn.sendall(b"X")
                stop.wait(0.2)

    threading.Thread(target=drip, daemon=True).start()
    client = Discord(f"http://127.0.0.1:{port}/api/v10", 1.0, 2)
    try:
        started = time.monotonic()
        sent = client.call("PATCH", "/webhooks/1/t/messages/@original", json={"content": "x"})
        took = time.monotonic() - started
    finally:
        stop.set()
        client.close()
        listener.close()
    assert sent.status is None and not sent.ok
    assert took < 1.6, took


# -- registering the commands -------------------------------------------------------------------


def test_discord_register_puts_every_command(discord_app: Flask, standin: StandIn, tmp_path: Path) -> None:
    runner = discord_app.test_cli_runner()
    done = runner.invoke(args=["discord-register"])
    assert done.exit_code == 0, done.output
    assert "Registered 5 commands globally: /match, /move, /board, /resign, /umpire." in done.output
    done = runner.invoke(args=["discord-register", "--guild", GUILD])
    assert done.exit_code == 0 and f"in server {GUILD}" in done.output
    assert [r["guild"] for r in standin.registrations] == [None, GUILD]
    umpire = next(c for c in standin.registrations[0]["commands"] if c["name"] == "umpire")
    assert {o["name"] for o in umpire["options"]} >= {
        "start",
        "pause",
        "resume",
        "addtime",
        "takeback",
        "adjudicate",
        "abort",
        "seat",
    }
    discord_app.config["DISCORD_BOT_TOKEN"] = ""
    assert "Set DISCORD_BOT_TOKEN" in runner.invoke(args=["discord-register"]).output
    typecheck(standin.sent, tmp_path)


def test_clock_presets_are_offered_for_the_game(discord_app: Flask, standin: StandIn, signer: Signer) -> None:
    chan = Channel(discord_app.test_client(), signer, standin)
    offered = chan.suggest("host", "match new", "clock", game="bug", clock="")
    assert offered[:2] == ["bug", "bug-green-meadow"] and set(offered) == set(PRESETS)


# -- the host's other controls ----------------------------------------------------------------------


def test_the_host_hands_a_seat_over_and_names_a_role(discord_app: Flask, standin: StandIn, signer: Signer) -> None:
    client = discord_app.test_client()
    chan = Channel(client, signer, standin)
    made = chan.send("host", "match new", game="catchup", player1="ann", player2="bob", options='{"size": 3}', start="created")
    match_id = made["data"]["embeds"][0]["description"].split("`")[1]
    handed = chan.send("host", "umpire seat", seat=0, player="eve")
    assert f"<@{USERS['eve']}>" in handed["data"]["embeds"][0]["description"]
    assert "You do not play" in ephemeral(chan.send("ann", "move", move="C3"))
    assert "plays C3" in public(chan.send("eve", "move", move="C3"))
    assert match_of(client, match_id)["players"] == ["Eve", "**Bob**"]
    assert kinds(client, match_id) == ["token", "move"]  # the record keeps the seat changing hands
    # the host's role: its holders may use /umpire; pings: the player to move, and nobody else
    chan.roles["ann"] = ["600000000000000001"]
    assert "Only the match's host" in ephemeral(chan.send("ann", "umpire ping", on=True))
    chan.send("host", "umpire role", role="600000000000000001")
    assert "pinged from now on" in public(chan.send("ann", "umpire ping", on=True))
    pinged = chan.send("bob", "move", move="B2")
    assert public(pinged).startswith(f"<@{USERS['eve']}>: your move.")
    assert pinged["data"]["allowed_mentions"] == {"parse": [], "users": [USERS["eve"]]}
    assert (
        "aborted" in public(chan.send("host", "umpire abort")).lower()
        or match_of(client, match_id)["state"]["status"] == "finished"
    )


def timed_match(chan: Channel) -> str:
    """A Catchup match of Ann (seat 0) and Bob, its clocks running from now (TURN_S, BANK_S): its id."""
    clock = json.dumps({"preset": "catchup", "turn_s": TURN_S, "bank_s": BANK_S})
    made = chan.send(
        "host", "match new", game="catchup", player1="ann", player2="bob", options='{"size": 3}', start="created", clock=clock
    )
    match_id: str = made["data"]["embeds"][0]["description"].split("`")[1]
    return match_id


def test_the_host_takes_back_a_slip_of_the_hand(
    discord_app: Flask, standin: StandIn, signer: Signer, fake_clock: FakeClock, tmp_path: Path
) -> None:
    """Issue 35 item 1 in the channel: ``/umpire takeback`` (the host's alone) undoes the last move
    through the same operation as ``POST .../takeback``: the record keeps the move and the take-back,
    the board goes back (its picture follows), the player moves again with the clock of just before
    the move, and a second take-back or a replayed interaction never undoes a second move."""
    client = discord_app.test_client()
    chan = Channel(client, signer, standin)
    match_id = timed_match(chan)
    assert "plays C3" in public(chan.send("ann", "move", move="C3"))
    before_slip = match_of(client, match_id)
    fake_clock.advance(20)  # Bob thinks, then slips: 20 s of his turn gone
    assert "plays A1" in public(chan.send("bob", "move", move="A1"))
    assert "Only the match's host" in ephemeral(chan.send("bob", "umpire takeback"))  # not a player's to take
    assert kinds(client, match_id) == ["move", "move"]

    fake_clock.advance(5)
    back = chan.send("host", "umpire takeback")
    said = public(back)
    assert "The umpire took back \\*\\*Bob\\*\\*'s move A1: \\*\\*Bob\\*\\* is to move again." in said, said
    assert standin.edits_of(back["token"])[0]["png"]  # the board changed: its picture follows
    now = match_of(client, match_id)
    assert now["ply"] == 1 and now["state"] == before_slip["state"] and now["clock"]["may_move"] == 1
    # the clocks of just before the move: Bob's bank whole, his turn restarted whole at the take-back
    assert now["clock"]["seats"]["1"]["bank_s"] == before_slip["clock"]["seats"]["1"]["bank_s"] == BANK_S
    assert now["clock"]["seats"]["1"]["remaining_s"] == TURN_S + BANK_S
    assert kinds(client, match_id) == ["move", "move", "takeback"]  # the record keeps the move and the take-back

    # a second take-back has nothing to take back (only the last move, once); the same interaction again never plays
    assert "taken back already" in ephemeral(chan.send("host", "umpire takeback"))
    again = client.post("/v1/discord/interactions", data=chan.last_body, headers=signer.headers(chan.last_body))
    assert again.status_code == 409 and kinds(client, match_id) == ["move", "move", "takeback"]
    assert "plays B2" in public(chan.send("bob", "move", move="B2"))
    record = client.get(f"/v1/matches/{match_id}/moves").get_json()
    assert record["replay"]["moves"] == ["C3", "A1", "takeback", "B2"]
    replayed = client.post("/v1/games/catchup/replay", json=record["replay"]).json
    unsigned = [
        {k: v for k, v in state.items() if k != "sig"} for state in (replayed["state"], match_of(client, match_id)["state"])
    ]
    assert replayed["valid"] and unsigned[0] == unsigned[1]
    typecheck([*chan.responses, *standin.sent], tmp_path)
    assert standin.problems == []


# -- one description, one operation (issue 33 "One event, one shape"; issue 36) ---------------------


TOLD = "\n(told by Description.post)"  # what a post has when a channel writes it from the change's description


def test_the_discord_message_and_the_webhook_post_of_a_change_are_its_one_description(
    discord_app: Flask, standin: StandIn, signer: Signer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each change made through Discord - a move, a refused attempt, a pause, time given, the
    resumption, a resignation - is told in the channel and posted to a webhook as the description
    that ``describe_step`` makes of its record entry: the same post (written by
    ``Description.post``, marked here, so a channel that wrote its own from the same data would
    fail), the same announcements, and a picture in Discord exactly when the board changed."""
    from service.matches import deliverer, webhook_formats
    from service.matches.changes import read
    from service.matches.db import get_store
    from service.matches.description import Description, describe_step
    from service.matches.record import entries_of, walk

    real = Description.post
    monkeypatch.setattr(Description, "post", lambda d, *a, **k: real(d, *a, **k) + TOLD)
    chan = Channel(discord_app.test_client(), signer, standin)
    made = chan.send("host", "match new", game="catchup", player1="ann", player2="bob", options='{"size": 3}', start="created")
    match_id = made["data"]["embeds"][0]["description"].split("`")[1]
    answers = [
        chan.send("ann", "move", move="C3"),
        chan.send("bob", "move", move="Z99"),  # refused: the board as it was
        chan.send("host", "umpire pause", reason="tea"),
        chan.send("host", "umpire addtime", player="bob", seconds=30),
        chan.send("host", "umpire resume"),
        chan.send("host", "umpire takeback"),  # Ann's C3: the board goes back (issue 35)
        chan.send("bob", "resign"),
    ]
    with discord_app.app_context():
        store = get_store()
        meta = read(store, match_id).meta
        game = GAMES[meta.game]
        described = [
            describe_step(game, meta, step, k + 1) for k, step in enumerate(walk(game, meta, entries_of(store.record(match_id))))
        ]
        walker = deliverer.Walker(match_id, meta)
        posted = [walker.change(store, k, 0) for k in range(len(described))]
    assert [d.kind for d in described] == ["move", "illegal", "pause", "add_time", "resume", "takeback", "resign"]
    assert [d.board_changed for d in described] == [True, False, False, False, False, True, True]
    for d, answer, change in zip(described, answers, posted, strict=True):
        told = d.post("discord")
        assert told.endswith(TOLD) and public(answer) == told, d.kind
        assert webhook_formats.discord_request(change, None)["json"]["content"] == told, d.kind
        sent = webhook_formats.json_payload(change, None, "")
        assert sent["post"] == d.post("markdown") and sent["announcements"] == d.announcements and d.announcements, d.kind
        assert sent["ply"] == d.ply and change.d.clock == d.clock, d.kind
        if d.board_changed:
            picture = standin.edits_of(answer["token"])[0]
            assert picture["png"] and picture["payload"]["attachments"][0]["description"] == d.alt_text()[:1024]
    time.sleep(0.3)
    assert [answer["token"] in standin.edits for answer in answers] == [d.board_changed for d in described]


API_SAYS = {
    "not_your_turn": "It is not this seat's turn.",
    "match_finished": "The match is over: no more moves or resignations.",
}


def test_discord_and_the_http_views_refuse_alike_because_they_call_the_same_operation(
    discord_app: Flask, standin: StandIn, signer: Signer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A match made over HTTP and bound to a channel: every refusal (not_started, already_started,
    not_your_turn, paused, already_paused, not_paused, cannot_take_back, match_finished) is raised by the one
    operation both channels call - seen here by a spy on each ``decide_*`` - with the same code,
    and said in the channel in the view's own sentence."""
    from service.discord import binding
    from service.discord.binding import Binding
    from service.discord.messages import md_escape_lines
    from service.matches import controls, moves
    from service.matches.db import get_store
    from service.web.errors import ApiError

    raised: list[tuple[str, str]] = []  # (operation, code) of each refusal, whichever channel called it

    def spy(module: Any, name: str) -> None:
        real = getattr(module, name)

        def watched(*args: Any, **kwargs: Any) -> Any:
            try:
                return real(*args, **kwargs)
            except ApiError as e:
                raised.append((name, e.code))
                raise

        monkeypatch.setattr(module, name, watched)

    for name in ("decide_move", "decide_resign"):
        spy(moves, name)
    for name in ("decide_start", "decide_pause", "decide_resume", "decide_add_time", "decide_abort", "decide_takeback"):
        spy(controls, name)
    client = discord_app.test_client()
    made = client.post("/v1/matches", json={"game": "catchup", "options": {"size": 3}, "clock": {"start": "umpire"}}).json
    match_id, umpire = made["match_id"], {"Authorization": f"Bearer {made['umpire']}"}
    seats = [{"Authorization": f"Bearer {made['seats'][s]}"} for s in ("0", "1")]
    with discord_app.app_context():
        binding.save(get_store(), Binding(match_id, GUILD, CHANNEL, (USERS["ann"], USERS["bob"]), USERS["host"]))
    chan = Channel(client, signer, standin)

    def http(path: str, headers: dict[str, str], body: Json | None = None) -> Any:
        return client.post(f"/v1/matches/{match_id}/{path}", json=body, headers=headers)

    def alike(operation: str, code: str, over_http: Any, command: tuple[str, str], options: Json, own: str | None = None) -> None:
        """The view refused with ``code``, through ``operation``; so does the channel's command, in the
        view's sentence, or in the channel's ``own`` where it says it as a player there expects."""
        assert over_http.status_code in (403, 409, 410) and over_http.json["error"]["code"] == code, over_http.json
        assert raised[-1] == (operation, code)
        raised.clear()
        answer = chan.send(command[0], command[1], **options)
        # a move or resignation after an end tells that end too (in public where the channel first hears of it)
        said = answer["data"]["content"] if code == "match_finished" else ephemeral(answer)
        assert raised == [(operation, code)], (command, raised)  # the same operation refused it, once
        assert said.split("\n")[0] == (own or md_escape_lines(over_http.json["error"]["message"]))
        if own is not None:  # the API says it its own way still
            assert over_http.json["error"]["message"] == API_SAYS[code]
        raised.clear()

    ply = match_of(client, match_id)["ply"]
    move = {"move": "C3", "ply": ply}
    alike("decide_move", "not_started", http("moves", seats[0], move), ("ann", "move"), {"move": "C3"})
    assert http("start", umpire).status_code == 200
    alike("decide_start", "already_started", http("start", umpire), ("host", "umpire start"), {})
    turn = f"It is not your turn: <@{USERS['ann']}> is to move."
    alike("decide_move", "not_your_turn", http("moves", seats[1], move), ("bob", "move"), {"move": "C3"}, turn)
    alike("decide_resume", "not_paused", http("resume", umpire), ("host", "umpire resume"), {})
    alike("decide_takeback", "cannot_take_back", http("takeback", umpire), ("host", "umpire takeback"), {})
    assert http("pause", umpire).status_code == 200
    alike("decide_move", "paused", http("moves", seats[0], move), ("ann", "move"), {"move": "C3"})
    alike("decide_pause", "already_paused", http("pause", umpire), ("host", "umpire pause"), {"reason": "again"})
    assert http("abort", umpire).status_code == 200
    over = "The match is over."  # then the final position, which says how it ended
    alike("decide_move", "match_finished", http("moves", seats[0], move), ("ann", "move"), {"move": "C3"}, over)
    alike("decide_resign", "match_finished", http("resign", seats[1]), ("bob", "resign"), {}, over)
    aborted = "The match is over. The game was aborted: no result."
    alike("decide_start", "match_finished", http("start", umpire), ("host", "umpire start"), {}, aborted)
    gift = {"seat": 0, "seconds": 5}
    alike(
        "decide_add_time",
        "match_finished",
        http("add-time", umpire, gift),
        ("host", "umpire addtime"),
        {"player": "ann", "seconds": 5},
        aborted,
    )
    assert kinds(client, match_id) == ["start", "pause", "abort"]  # nothing refused was recorded


# -- the channel's webhook: the existing Discord posts, from a real delivery --------------------------


def test_the_channels_webhook_posts_only_what_no_command_answered(
    redis_url: str, prefix: str, tmp_path: Path, standin: StandIn, signer: Signer, fake_clock: FakeClock
) -> None:
    """docs/DISCORD.md "What happens without a command": the webhook given to /match new is the
    channel's own, where every command's change is told by its answer (the picture edited in), so
    it posts none of them - a whole match played by commands posts nothing - and posts what no
    command answered: what the API did to the match (a seat's new token, a move with it) and a
    flag (R-T1).  Posted by the deliverer (``flask deliver``, run here as make run runs it) as
    today's Discord posts, each checked against discord-api-types."""
    admin = {"Authorization": "Bearer admin-of-the-test"}
    app = make_app(redis_url, prefix, tmp_path, standin, signer, MATCH_CLOCK=fake_clock, ADMIN_TOKEN="admin-of-the-test")
    client = app.test_client()
    chan = Channel(client, signer, standin)
    env = {
        **os.environ, "REDIS_URL": redis_url, "REDIS_PREFIX": prefix, "REDIS_CLUSTER": "1" if ON_CLUSTER else "",
        "WEBHOOK_ALLOW": f"127.0.0.1:{standin.port}", "WEBHOOK_POLL_S": "0.1", "DATA_DIR": str(tmp_path),
    }  # fmt: skip
    command = [sys.executable, "-m", "flask", "--app", "service", "deliver"]
    deliverer = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def new(**more: Any) -> str:
        made = chan.send(
            "host", "match new", game="catchup", player1="ann", player2="bob", options='{"size": 3}',
            webhook=standin.webhook_url, **more,
        )  # fmt: skip
        match_id: str = made["data"]["embeds"][0]["description"].split("`")[1]
        return match_id

    def posted_all(match_id: str) -> Json:
        """The match's webhook once the deliverer has gone past every change of it."""
        hook: Json = {}

        def done() -> bool:
            hook.update(client.get(f"/v1/matches/{match_id}/webhooks", headers=admin).get_json()["webhooks"][0])
            return bool(hook["pending"] == 0)

        until(done, 60, "the deliverer past every change")
        return hook

    try:
        first = new()
        public(chan.send("host", "umpire start"))
        public(chan.send("ann", "move", move="C3"))
        public(chan.send("bob", "move", move="Z99"))  # refused: a change of the record too
        for path, options in (("umpire pause", {"reason": "tea"}), ("umpire addtime", {"player": "bob", "seconds": 30})):
            public(chan.send("host", path, **options))
        public(chan.send("host", "umpire resume"))
        public(chan.send("bob", "move", move="A1"))
        public(chan.send("host", "umpire takeback"))
        public(chan.send("bob", "move", move="B2"))
        public(chan.send("ann", "resign"))
        assert len(kinds(client, first)) == 10 and match_of(client, first)["state"]["status"] == "finished"
        hook = posted_all(first)
        assert standin.webhook_posts == [] and hook["delivered"] == hook["failed"] == 0  # every change was answered

        clock = json.dumps({"preset": "catchup", "turn_s": TURN_S, "bank_s": BANK_S})
        second = new(start="created", clock=clock)
        token = client.post(f"/v1/matches/{second}/seats/0/token", headers=admin).get_json()["token"]
        seat = {"Authorization": f"Bearer {token}"}
        moved = client.post(f"/v1/matches/{second}/moves", json={"move": "C3", "ply": 0}, headers=seat)
        assert moved.status_code == 200, moved.get_json()
        public(chan.send("bob", "move", move="B2"))  # answered here: not posted
        fake_clock.advance(TURN_S + BANK_S + 1)  # R-T1: Ann, to move, runs out of time
        public(chan.send("eve", "board"))  # the read that sees the flag
        assert kinds(client, second) == ["token", "move", "move", "flag"]
        hook = posted_all(second)
        hooks = [{"url": standin.webhook_url, "format": "discord", "skip_via": "discord"}]
        asked = client.post("/v1/matches", json={"game": "catchup", "webhooks": hooks})
        assert asked.status_code == 422  # a webhook made with the API posts every change, as before: none skips
    finally:
        deliverer.terminate()
        deliverer.wait(30)
        courier.close(app)
        db.close(app)
        cleanup(redis_url, prefix, ON_CLUSTER)
    said = [p["payload"]["content"] for p in standin.webhook_posts]
    assert len(said) == 3 and hook["delivered"] == 3, said
    assert "new token for Ann" in said[0] and standin.webhook_posts[0]["png"] is None  # the board as it was: no picture
    assert "Ann @\u200beveryone plays C3" in said[1] and standin.webhook_posts[1]["png"]
    assert "ran out of time (R-T1)" in said[2] and standin.webhook_posts[2]["png"]
    typecheck([p for p in standin.sent if p[0] == "RESTPostAPIWebhookWithTokenJSONBody"], tmp_path)


# -- the manual ------------------------------------------------------------------------------------


DISCORD_PAGE = ROOT / "docs" / "DISCORD.md"


def test_the_discord_page_works_as_printed(standin: StandIn, tmp_path: Path) -> None:
    """docs/DISCORD.md's settings (its ``sh`` block) and its commands (``console``: each ``$``
    line run by bash, its output as printed), against the stand-in Discord."""
    text = DISCORD_PAGE.read_text(encoding="utf-8")
    setup = "\n".join(re.findall(r"```sh\n(.*?)```", text, flags=re.S))
    steps = [
        (block.splitlines()[0][2:], "\n".join(block.splitlines()[1:]))
        for block in re.findall(r"```console\n(.*?)```", text, flags=re.S)
    ]
    assert "DISCORD_PUBLIC_KEY" in setup and [c.split()[3] for c, _ in steps] == ["discord-register"]
    token = re.search(r"DISCORD_BOT_TOKEN=(\S+)", setup)
    assert token is not None
    standin.bot_token = token.group(1)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DISCORD_")}, "DISCORD_API": standin.api,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }  # fmt: skip
    for command, printed in steps:
        done = subprocess.run(
            ["bash", "-c", f"set -eu\n{setup}\n{command}"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.rstrip("\n") == printed, f"$ {command}\nthe page shows:\n{printed}\nit says:\n{done.stdout}"
    assert [r["guild"] for r in standin.registrations] == ["900000000000000001"]


def test_every_discord_setting_is_documented_with_its_default() -> None:
    from test_settings import documented_settings

    from service.discord import SETTINGS

    documented = documented_settings()
    for name, (_, default) in SETTINGS.items():
        assert name in documented, name
        if isinstance(default, int | float) and not isinstance(default, bool):
            assert float(documented[name].strip("`")) == default, name
        elif default:
            assert documented[name].strip("`") == default, name


def test_a_match_through_the_served_app(standin: StandIn, signer: Signer, tmp_path: Path) -> None:
    """What `make run` serves (gunicorn's gevent worker, its own Redis): Discord's PING, a match
    made and a move played, each answered at once and its picture edited in by the worker."""
    from liveserver import serve

    settings = {
        "DISCORD_PUBLIC_KEY": signer.public_hex, "DISCORD_APPLICATION_ID": APPLICATION, "DISCORD_API": standin.api,
        "DISCORD_BOT_TOKEN": BOT_TOKEN,
    }  # fmt: skip
    with serve(tmp_path, **settings) as base, httpx.Client(base_url=base, timeout=10) as http:
        ping = json.dumps({"id": "1", "application_id": APPLICATION, "type": 1, "token": "t", "version": 1}).encode()
        assert http.post("/v1/discord/interactions", content=ping, headers=signer.headers(ping)).json() == {"type": 1}
        forged = http.post("/v1/discord/interactions", content=ping, headers=Signer().headers(ping))
        assert forged.status_code == 401
        chan = Channel(None, signer, standin)  # type: ignore[arg-type]
        for who, path, options in (
            (
                "host",
                ("match", "new"),
                {"game": "too", "player1": "ann", "player2": "bob", "options": '{"size": 3}', "start": "created"},
            ),
            ("ann", ("move",), {"move": "B A1"}),
        ):
            sent = chan.interaction(who, path, options)
            body = json.dumps(sent).encode()
            answer = http.post("/v1/discord/interactions", content=body, headers=signer.headers(body))
            assert answer.status_code == 200 and answer.json()["type"] == 4, answer.text
            standin.answered(sent["token"])
            assert standin.edits_of(sent["token"])[0]["png"]


# -- what the host names means whom they named ----------------------------------------------------


@pytest.mark.parametrize("first", ["player1", "player2"])
def test_adjudicate_player1_gives_the_win_to_the_user_named_player1_whatever_seat_they_took(
    first: str, discord_app: Flask, standin: StandIn, signer: Signer
) -> None:
    """``result:player1`` names the user the host named ``player1`` at /match new, whichever seat
    ``first`` gave them (after ``first:player2`` seat 0 is Bob's): the answer names that user as the winner."""
    client = discord_app.test_client()
    chan = Channel(client, signer, standin)
    made = chan.send(
        "host", "match new", game="catchup", player1="ann", player2="bob", first=first, options='{"size": 3}', start="created"
    )
    match_id = made["data"]["embeds"][0]["description"].split("`")[1]
    ann_seat = 0 if first == "player1" else 1
    assert match_of(client, match_id)["players"][ann_seat] == NAMES["ann"]
    judged = public(chan.send("host", "umpire adjudicate", result="player1", reason="Ann wins by forfeit"))
    assert "The umpire adjudicated: Ann @\u200beveryone wins" in judged, judged
    assert match_of(client, match_id)["state"]["winner"] == ann_seat


def test_a_match_option_that_is_no_match_id_is_an_unknown_match_never_a_failure(
    discord_app: Flask, standin: StandIn, signer: Signer
) -> None:
    """``match:hello`` (not an id the service makes) is answered as a match unknown in this channel,
    only to its sender; its autocomplete offers nothing (before: a 500 from the key's shard)."""
    chan = Channel(discord_app.test_client(), signer, standin)
    chan.send("host", "match new", game="catchup", player1="ann", player2="bob", options='{"size": 3}', start="created")
    for bad in ("hello", "zz", "ZZ" * 16, "../x"):
        assert f"There is no match {bad} in this channel." == ephemeral(chan.send("eve", "board", match=bad))
        assert "There is no match" in ephemeral(chan.send("ann", "move", move="C3", match=bad))
        assert chan.suggest("ann", "move", "move", move="C", match=bad) == []
    assert chan.suggest("ann", "move", "move", move="C") != []


def test_a_deferred_answer_is_never_lost_when_every_poster_is_busy(
    redis_url: str, prefix: str, tmp_path: Path, standin: StandIn, signer: Signer, caplog: pytest.LogCaptureFixture
) -> None:
    """A slow Discord (each edit answered after 1 s), one poster and one waiting: every command that
    was deferred still gets its answer's words (a /move's verdict would otherwise never be shown);
    one past the lanes' bounds is refused "busy" at once, and nothing waits without bound."""
    app = make_app(redis_url, prefix, tmp_path, standin, signer, DISCORD_ANSWER_S=0.0, DISCORD_THREADS=1, DISCORD_QUEUE=1)
    try:
        chan = Channel(app.test_client(), signer, standin)
        made = chan.send("host", "match new", game="catchup", player1="ann", player2="bob", options='{"size": 3}')
        standin.edits_of(made["token"])
        standin.edit_s = 1.0
        answers = [chan.send("eve", "board") for _ in range(6)]
        deferred = [a["token"] for a in answers if a["type"] == 5]
        busy = [a for a in answers if a["type"] == 4]
        assert len(deferred) >= 3, answers  # more than the posters hold: some went past the posting lane
        for a in busy:
            assert "The umpire is busy" in ephemeral(a)
        for token in deferred:
            words = standin.edits_of(token, timeout=20)[0]["payload"]["content"]
            assert "Catchup" in words and "ply 0" in words, words
        assert any("sent from its judging thread" in r.getMessage() for r in caplog.records)  # the case was met
    finally:
        standin.edit_s = 0.0
        courier.close(app)
        db.close(app)
        cleanup(redis_url, prefix, ON_CLUSTER)


def test_a_deferred_refusal_is_seen_only_by_its_sender(
    redis_url: str, prefix: str, tmp_path: Path, standin: StandIn, signer: Signer
) -> None:
    """Discord fixes an answer public or private at the deferral (``{"type": 5}``, public): a command
    deferred and then refused (out of turn, not the host) has that public "thinking" deleted
    (``DELETE .../messages/@original``) and its refusal sent after, flagged EPHEMERAL, never edited
    into the public answer; a deferred change is edited in, public, as before."""
    app = make_app(redis_url, prefix, tmp_path, standin, signer, DISCORD_ANSWER_S=0.0)
    try:
        chan = Channel(app.test_client(), signer, standin)
        made = chan.send("host", "match new", game="catchup", player1="ann", player2="bob", options='{"size":3}', start="created")
        standin.edits_of(made["token"])
        for who, path, options, said in (
            ("bob", "move", {"move": "C3"}, "It is not your turn"),
            ("ann", "umpire start", {}, "Only the match's host"),
        ):
            answer = chan.send(who, path, **options)
            assert answer["type"] == 5
            until(lambda t=answer["token"]: t in standin.follow_ups, 10, "the refusal")
            refused = standin.follow_ups[answer["token"]]
            assert len(refused) == 1 and refused[0]["flags"] == 64 and said in refused[0]["content"], refused
            assert refused[0]["allowed_mentions"] == {"parse": []}
            assert answer["token"] in standin.deleted and answer["token"] not in standin.edits
            assert [m for m, t in standin.calls if t == answer["token"]] == ["DELETE", "POST"]  # deleted first
        moved = chan.send("ann", "move", move="C3")
        assert "plays C3" in standin.edits_of(moved["token"])[0]["payload"]["content"]
        assert moved["token"] not in standin.deleted
        typecheck([*chan.responses, *standin.sent], tmp_path)
    finally:
        courier.close(app)
        db.close(app)
        cleanup(redis_url, prefix, ON_CLUSTER)


def test_a_move_after_a_flag_nobody_saw_says_how_the_match_ended(
    discord_app: Flask, standin: StandIn, signer: Signer, fake_clock: FakeClock
) -> None:
    """Ann's flag falls with no webhook and nobody asking /board: Bob's next /move is where the
    channel first hears of it, so its answer says it, in public: who ran out of time and who wins
    (R-T1), with the final board.  The channel told it once: a later /move is told the same, only
    by its sender; so is a /move after an end a command announced (Bob's resignation)."""
    client = discord_app.test_client()
    chan = Channel(client, signer, standin)
    match_id = timed_match(chan)
    fake_clock.advance(TURN_S + BANK_S + 1)  # R-T1: Ann, to move, runs out of time
    ended = "\\*\\*Bob\\*\\* wins on time: Ann @\u200beveryone ran out of time (R-T1)."
    first = chan.send("bob", "move", move="C3")
    assert public(first).startswith("The match is over.\n") and ended in public(first)
    assert kinds(client, match_id) == ["flag"] and match_of(client, match_id)["state"]["winner"] == 1
    assert ended in ephemeral(chan.send("ann", "move", move="C3"))  # told in the channel already

    chan.send("host", "match new", game="catchup", player1="ann", player2="bob", options='{"size": 3}', start="created")
    assert "resigned" in public(chan.send("bob", "resign"))
    assert "Ann @\u200beveryone wins: \\*\\*Bob\\*\\* resigned." in ephemeral(chan.send("ann", "move", move="C3"))


def test_a_take_back_may_not_reopen_an_earlier_match_while_another_is_on(
    discord_app: Flask, standin: StandIn, signer: Signer
) -> None:
    """A channel has one match on at a time: once the next /match new is on, ``/umpire takeback
    match:<the earlier one>`` is refused (only to the host) and the earlier match stays finished;
    once the channel's match has ended, the same take-back reopens it (the move that ended it, within
    10 minutes)."""
    client = discord_app.test_client()
    chan = Channel(client, signer, standin)
    made = chan.send("host", "match new", game="too", player1="ann", player2="bob", options='{"size": 2}', start="created")
    old = made["data"]["embeds"][0]["description"].split("`")[1]
    game, rnd = GAMES["too"], random.Random(6)  # 7 cells: 7 moves fill the board (R-E2)
    while (m := match_of(client, old))["state"]["status"] != "finished":
        public(chan.send(seat_user(m["clock"]["may_move"]), "move", move=random_move(game, game.load(m["state"]), rnd)))
    moves = kinds(client, old)
    assert moves[-1] == "move"  # ended by a move: a take-back could reopen it
    chan.send("host", "match new", game="catchup", player1="ann", player2="bob", options='{"size": 3}', start="created")
    refused = ephemeral(chan.send("host", "umpire takeback", match=old))
    assert "one match on at a time" in refused, refused
    assert match_of(client, old)["state"]["status"] == "finished" and kinds(client, old) == moves
    chan.send("host", "umpire abort")  # the channel's match ends: the earlier one may reopen
    assert "took back" in public(chan.send("host", "umpire takeback", match=old))
    assert match_of(client, old)["state"]["status"] == "ongoing"


@pytest.mark.parametrize(
    ("name", "first", "typed"),
    [
        # R-H3: a move's cells separated by spaces and/or commas
        ("catchup", "C3", {"b2 b": ["b2,b", "b2, b", "b2 ,b"], "b2 b3": ["B2,B3", "b2, b3"]}),
        # R-E4: each stone its colour then its cell, the stones separated the same way
        ("product", "B C3", {"w b2 b": ["w b2,b", "w b2, b", "W,B2,B"], "w b2 b a": ["w b2, b a", "W,B2,B,A"]}),
    ],
)
def test_autocomplete_reads_a_move_written_with_commas_as_the_move_parser_does(
    name: str, first: str, typed: dict[str, list[str]], discord_app: Flask, standin: StandIn, signer: Signer
) -> None:
    """``/move move:b2, b3`` is a move (R-H3 allows commas): while it is typed, Discord is offered
    the same moves as for ``b2 b``."""
    chan = Channel(discord_app.test_client(), signer, standin)
    chan.send("host", "match new", game=name, player1="ann", player2="bob", options='{"size": 3}', start="created")
    assert "plays" in public(chan.send("ann", "move", move=first))
    for spaced, with_commas in typed.items():
        offered = chan.suggest("bob", "move", "move", move=spaced)
        assert offered and all(m.lower().startswith(spaced) for m in offered), offered
        for written in with_commas:
            assert chan.suggest("bob", "move", "move", move=written) == offered, written


def test_a_first_move_clock_pings_the_first_player_in_the_answer(discord_app: Flask, standin: StandIn, signer: Signer) -> None:
    """``start:first_move``: the clocks start with the first move, and its player is pinged for it."""
    chan = Channel(discord_app.test_client(), signer, standin)
    made = chan.send(
        "host", "match new", game="catchup", player1="ann", player2="bob", options='{"size": 3}', start="first_move", ping=True
    )
    assert public(made).startswith(f"<@{USERS['ann']}>: your move.\n")
    assert made["data"]["allowed_mentions"] == {"parse": [], "users": [USERS["ann"]]}


def test_a_ping_goes_only_to_a_player_the_turn_passed_to(discord_app: Flask, standin: StandIn, signer: Signer) -> None:
    """With ``ping:true`` the player to move is pinged when the turn has passed to them (the start,
    a move, a resumption, a take-back), never by a look (/board, whoever asks), a gift of time, a
    pause or a refused attempt, which leave the turn where it was: nobody is pinged twice for one turn."""
    chan = Channel(discord_app.test_client(), signer, standin)

    def pinged(answer: Json) -> str | None:
        """Who the answer pings (its first line, and the one user ``allowed_mentions`` names), or None."""
        content, allowed = public(answer), answer["data"]["allowed_mentions"]
        users = allowed.get("users") or []
        assert allowed["parse"] == [] and len(users) <= 1
        assert content.startswith(f"<@{users[0]}>: your move.\n" if users else "**"), content
        return next((who for who, user in USERS.items() if users == [user]), None)

    made = chan.send("host", "match new", game="catchup", player1="ann", player2="bob", options='{"size": 3}', ping=True)
    assert pinged(made) is None  # the clocks wait for the host's start
    said = [
        (pinged(chan.send(who, path, **options)), expected)
        for who, path, options, expected in (
            ("host", "umpire start", {}, "ann"),
            ("ann", "board", {}, None),
            ("ann", "move", {"move": "C3"}, "bob"),
            ("eve", "board", {}, None),
            ("bob", "board", {}, None),
            ("host", "umpire addtime", {"player": "ann", "seconds": 30}, None),
            ("host", "umpire addtime", {"player": "bob", "seconds": 30}, None),
            ("bob", "move", {"move": "Z99"}, None),  # refused: Bob is still to move
            ("host", "umpire pause", {"reason": "tea"}, None),
            ("host", "umpire resume", {}, "bob"),
            ("bob", "move", {"move": "A1"}, "ann"),
            ("host", "umpire takeback", {}, "bob"),
        )
    ]
    assert [got for got, _ in said] == [expected for _, expected in said]


def test_refusals_and_ends_are_said_as_a_player_in_the_channel_expects(
    discord_app: Flask, standin: StandIn, signer: Signer
) -> None:
    """A move out of turn is told whose turn it is (a mention, which never pings); an umpire's
    control on a finished match is told that it is over and how it ended; an adjudication says
    its end once (the result line, not the announcements again).  The API's own sentences stay."""
    client = discord_app.test_client()
    chan = Channel(client, signer, standin)
    made = chan.send("host", "match new", game="catchup", player1="ann", player2="bob", options='{"size": 3}', start="created")
    match_id = made["data"]["embeds"][0]["description"].split("`")[1]
    out_of_turn = chan.send("bob", "move", move="C3")
    assert ephemeral(out_of_turn) == f"It is not your turn: <@{USERS['ann']}> is to move."
    assert "resigned" in public(chan.send("bob", "resign"))
    ended = "The match is over. Ann @\u200beveryone wins: \\*\\*Bob\\*\\* resigned."
    for path in ("umpire resume", "umpire abort", "umpire pause", "umpire start"):
        assert ephemeral(chan.send("host", path, **({"reason": "tea"} if path == "umpire pause" else {}))) == ended, path
    assert match_of(client, match_id)["state"]["end"] == "resign"  # nothing refused changed it

    chan.send("host", "match new", game="catchup", player1="ann", player2="bob", options='{"size": 3}', start="created")
    assert "plays C3" in public(chan.send("ann", "move", move="C3"))
    judged = public(chan.send("host", "umpire adjudicate", result="draw", reason="agreed *draw* by both"))
    assert judged.count("The umpire adjudicated: a draw (agreed \\*draw\\* by both).") == 1, judged
    assert judged.count("The umpire adjudicated the game a draw.") == 1, judged  # the result line alone says the end


def test_board_shows_the_match_id_that_match_and_the_api_take(discord_app: Flask, standin: StandIn, signer: Signer) -> None:
    """/board names the match by its id (under the post, with who plays which seat): the id that
    ``match:`` picks an earlier match by, and that the API reads the match with."""
    client = discord_app.test_client()
    chan = Channel(client, signer, standin)
    made = chan.send("host", "match new", game="catchup", player1="ann", player2="bob", options='{"size": 3}', start="created")
    first = made["data"]["embeds"][0]["description"].split("`")[1]
    chan.send("host", "umpire abort")
    chan.send("host", "match new", game="too", player1="ann", player2="bob", options='{"size": 2}', start="created")
    shown = chan.send("eve", "board")["data"]["embeds"][0]["description"]
    assert shown.startswith("Match `") and f"<@{USERS['ann']}>" in shown
    second = shown.split("`")[1]
    assert second != first and match_of(client, second)["game"] == "too"
    earlier = chan.send("eve", "board", match=first)
    assert earlier["data"]["embeds"][0]["description"].startswith(f"Match `{first}` · ") and "Catchup" in public(earlier)


def test_a_pause_reason_may_be_as_long_as_the_api_takes_and_is_said_whole(
    discord_app: Flask, standin: StandIn, signer: Signer
) -> None:
    """``/umpire pause reason`` and ``adjudicate reason`` are registered with the API's bound (500
    characters, service/web/schemas.py): a reason of 500 characters that escaping doubles is
    announced whole within Discord's 2,000 characters (the diagram gives way), and kept whole in
    the record; one longer is refused in the API's sentence."""
    client = discord_app.test_client()
    registered = {
        (top["name"], sub["name"]): sub for top in definitions() for sub in top["options"] if sub["type"] == SUB_COMMAND
    }
    for path in (("umpire", "pause"), ("umpire", "adjudicate")):
        reason = next(o for o in registered[path]["options"] if o["name"] == "reason")
        assert reason["max_length"] == 500, path
    chan = Channel(client, signer, standin)
    made = chan.send("host", "match new", game="catchup", player1="ann", player2="bob", options='{"size": 3}', start="created")
    match_id = made["data"]["embeds"][0]["description"].split("`")[1]
    reason = "_*" * 250
    said = public(chan.send("host", "umpire pause", reason=reason))
    escaped = "\\_\\*" * 250
    assert len(said) <= 2000 and f"The umpire paused the clocks: {escaped}." in said, said
    assert client.get(f"/v1/matches/{match_id}/moves").get_json()["moves"][-1]["reason"] == reason
    chan.send("host", "umpire resume")
    too_long = ephemeral(chan.send("host", "umpire pause", reason="x" * 501))
    assert "1 to 500 characters" in too_long and kinds(client, match_id) == ["pause", "resume"]
