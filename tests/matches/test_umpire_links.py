"""Issue 35 item 14 and item 5, the server's half: a reason with a pause, co-umpire links (a second
umpire token for the same match), and a seat's link the umpire replaced told apart from one the match
never had (``401 token_replaced``), checked without moving (``GET .../seat``)."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from matchkit import FakeClock, Match, NewMatch, sse_events

from engine.registry import GAMES
from service.matches.db import get_store
from service.matches.description import describe_step
from service.matches.match import CO_UMPIRES, CO_UMPIRES_MADE, REPLACED_KEPT, Meta
from service.matches.record import entries_of, last_step

CLOCK = {"turn_s": 20, "bank_s": 60, "step_s": 1}


def umpire(m: Match) -> dict[str, str]:
    return {"Authorization": f"Bearer {m.created['umpire']}"}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# -- a reason with a pause ---------------------------------------------------------------


@pytest.mark.app_config(EVENTS_LIFETIME_S=0.3)
def test_a_pause_s_reason_is_kept_announced_streamed_and_in_the_record(client: FlaskClient, new_match: NewMatch) -> None:
    """Before: the pause took no body (a host could not say why the clocks stopped)."""
    m = new_match("catchup", {"size": 3}, clock=CLOCK, players=None)
    reason = "Ann's connection dropped <b>{5 min}</b>"
    r = client.post(f"/v1/matches/{m.id}/pause", json={"reason": reason}, headers=umpire(m))
    assert r.status_code == 200, r.json
    assert r.json["announcements"] == [f"The umpire paused the clocks: {reason}."]
    assert r.json["events"] == [{"type": "umpire", "action": "pause", "reason": reason}]
    entry = m.record()["moves"][-1]
    assert (entry["kind"], entry["reason"]) == ("pause", reason)
    text = m.record()["text"]
    assert "{the umpire paused the clocks at " in text and "(Ann's connection dropped <b>(5 min)</b>)}" in text
    streamed = [d for n, _, d in sse_events(client.get(f"/v1/matches/{m.id}/events?last_event_id=0").get_data(as_text=True))]
    assert streamed[0]["type"] == "pause" and streamed[0]["announcements"] == r.json["announcements"]
    # A pause without a body is as it always was; a reason of nothing, or of control characters, is refused.
    client.post(f"/v1/matches/{m.id}/resume", headers=umpire(m))
    plain = client.post(f"/v1/matches/{m.id}/pause", headers=umpire(m))
    assert plain.json["announcements"] == ["The umpire paused the clocks."] and "reason" not in m.record()["moves"][-1]
    client.post(f"/v1/matches/{m.id}/resume", headers=umpire(m))
    for bad in ("", "a\nb", "x" * 501, 5):
        refused = client.post(f"/v1/matches/{m.id}/pause", json={"reason": bad}, headers=umpire(m))
        assert (refused.status_code, refused.json["error"]["code"]) == (422, "invalid_body"), bad
    refused = client.post(f"/v1/matches/{m.id}/pause", json={"why": "x"}, headers=umpire(m))
    assert refused.status_code == 422


@pytest.mark.app_config(EVENTS_LIFETIME_S=0.3)
def test_a_paused_match_says_why_in_every_read_until_it_resumes(client: FlaskClient, new_match: NewMatch) -> None:
    """A seat that opens its page during the pause, a spectator who connects late: the match's read and
    every clock told while paused say why (``clock.pause_reason``), through time given and a take-back,
    until the clocks resume; a pause without a reason says none."""
    m = new_match("catchup", {"size": 3}, clock=CLOCK, players=["Ann", "Bob"])
    assert m.move(0, "C3", 0).status_code == 200
    reason = "Bob's connection dropped"
    paused = client.post(f"/v1/matches/{m.id}/pause", json={"reason": reason}, headers=umpire(m)).json
    assert paused["clock"]["pause_reason"] == reason and m.get().json["clock"]["pause_reason"] == reason
    given = client.post(f"/v1/matches/{m.id}/add-time", json={"seat": 1, "seconds": 30}, headers=umpire(m)).json
    assert given["clock"]["pause_reason"] == reason
    back = client.post(f"/v1/matches/{m.id}/takeback", headers=umpire(m)).json
    assert back["clock"]["paused"] and back["clock"]["pause_reason"] == reason and back["ply"] == 0
    stream = client.get(f"/v1/matches/{m.id}/events?last_event_id=0").get_data(as_text=True)
    told = [(n, d["clock"].get("pause_reason")) for n, _, d in sse_events(stream) if "clock" in d]
    assert told == [("move", None), ("pause", reason), ("add_time", reason), ("takeback", reason)], told
    resumed = client.post(f"/v1/matches/{m.id}/resume", headers=umpire(m)).json
    assert "pause_reason" not in resumed["clock"] and "pause_reason" not in m.get().json["clock"]
    client.post(f"/v1/matches/{m.id}/pause", headers=umpire(m))
    assert m.get().json["clock"]["paused"] and "pause_reason" not in m.get().json["clock"]


def test_a_pause_s_reason_is_escaped_in_every_post_format(client: FlaskClient, new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3}, clock=CLOCK)
    reason = "@everyone *stop* <@123> [link](https://x.example)"
    client.post(f"/v1/matches/{m.id}/pause", json={"reason": reason}, headers=umpire(m))
    with client.application.app_context():
        store = get_store()
        meta = Meta.from_json(store.r.hget(store.key(m.id), "meta"))
        d = describe_step(GAMES["catchup"], meta, last_step(GAMES["catchup"], meta, entries_of(store.record(m.id))))
        discord = d.post("discord")
        markdown = d.post("markdown")
    assert "@everyone" not in discord.replace("@\u200beveryone", "") and "<@123>" not in discord
    assert "*stop*" not in markdown and "[link](" not in markdown


# -- co-umpire links -----------------------------------------------------------------------


def test_a_co_umpire_link_has_the_umpire_s_controls_and_the_record_says_when_it_was_made(
    client: FlaskClient, new_match: NewMatch
) -> None:
    """Before: one umpire token per match, kept in the browser that created it."""
    m = new_match("catchup", {"size": 3}, clock=CLOCK)
    made = client.post(f"/v1/matches/{m.id}/umpires", headers=umpire(m))
    assert made.status_code == 200, made.json
    link, token = made.json["link"], made.json["token"]
    assert link == 1 and len(token) >= 22 and token not in (m.created["umpire"], *m.tokens)
    assert made.json["match_id"] == m.id
    co = bearer(token)
    assert client.post(f"/v1/matches/{m.id}/pause", headers=co).status_code == 200
    assert client.post(f"/v1/matches/{m.id}/resume", headers=co).status_code == 200
    m.move(0, "C3", 0)
    assert client.post(f"/v1/matches/{m.id}/takeback", headers=co).status_code == 200
    # A co-umpire link does not make or withdraw links.
    for call in (
        lambda: client.post(f"/v1/matches/{m.id}/umpires", headers=co),
        lambda: client.delete(f"/v1/matches/{m.id}/umpires/1", headers=co),
    ):
        r = call()
        assert (r.status_code, r.json["error"]["code"]) == (403, "not_umpire")
    record = m.record()
    first = record["moves"][0]
    assert (first["kind"], first["link"], first["events"]) == (
        "add_umpire",
        1,
        [{"type": "umpire", "action": "add_umpire", "link": 1}],
    )
    assert token not in str(record) and "made co-umpire link 1" in record["text"]
    # Withdrawn: it stops at once; the umpire's own token goes on.
    gone = client.delete(f"/v1/matches/{m.id}/umpires/1", headers=umpire(m))
    assert gone.status_code == 200 and gone.json["announcements"] == ["The umpire withdrew co-umpire link 1: it no longer works."]
    r = client.post(f"/v1/matches/{m.id}/pause", headers=co)
    assert (r.status_code, r.json["error"]["code"]) == (401, "unauthorized")
    again = client.delete(f"/v1/matches/{m.id}/umpires/1", headers=umpire(m))
    assert (again.status_code, again.json["error"]["code"]) == (404, "not_found")
    assert [e["kind"] for e in m.record()["moves"]] == ["add_umpire", "pause", "resume", "move", "takeback", "remove_umpire"]


def test_co_umpire_links_are_bounded(client: FlaskClient, new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    links = [client.post(f"/v1/matches/{m.id}/umpires", headers=umpire(m)).json["link"] for _ in range(CO_UMPIRES)]
    assert links == [1, 2, 3]
    full = client.post(f"/v1/matches/{m.id}/umpires", headers=umpire(m))
    assert (full.status_code, full.json["error"]["code"], full.json["error"]["details"]) == (
        409,
        "too_many_umpires",
        {"limit": CO_UMPIRES, "made": CO_UMPIRES},
    )
    made = CO_UMPIRES
    while made < CO_UMPIRES_MADE:  # withdrawn and made again: numbers are never given twice
        assert client.delete(f"/v1/matches/{m.id}/umpires/{made - 2}", headers=umpire(m)).status_code == 200
        made += 1
        assert client.post(f"/v1/matches/{m.id}/umpires", headers=umpire(m)).json["link"] == made
    client.delete(f"/v1/matches/{m.id}/umpires/{made}", headers=umpire(m))
    spent = client.post(f"/v1/matches/{m.id}/umpires", headers=umpire(m))
    assert (spent.status_code, spent.json["error"]["details"]["made"]) == (409, CO_UMPIRES_MADE)
    assert len(m.record()["moves"]) == 2 * CO_UMPIRES_MADE - CO_UMPIRES + 1


def test_only_the_umpire_makes_links_and_none_once_the_match_is_over(client: FlaskClient, new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    for headers, status in (({}, 401), (m.auth(0), 403), (bearer("nobody"), 401)):
        assert client.post(f"/v1/matches/{m.id}/umpires", headers=headers).status_code == status
    m.resign(0)
    over = client.post(f"/v1/matches/{m.id}/umpires", headers=umpire(m))
    assert (over.status_code, over.json["error"]["code"]) == (410, "match_finished")


# -- a seat's link replaced --------------------------------------------------------------


def test_a_replaced_seat_link_is_told_so_and_a_seat_checks_its_link_without_moving(
    client: FlaskClient, new_match: NewMatch
) -> None:
    """Before: the old link's move answered "Send a seat token of this match", as for a link never made."""
    m = new_match("catchup", {"size": 3})
    check = client.get(f"/v1/matches/{m.id}/seat", headers=m.auth(0))
    assert (check.status_code, check.json) == (200, {"match_id": m.id, "seat": 0})
    assert client.get(f"/v1/matches/{m.id}/seat", headers=m.auth(1)).json["seat"] == 1
    new = client.post(f"/v1/matches/{m.id}/seats/0/token", headers=umpire(m)).json["token"]
    for r in (client.get(f"/v1/matches/{m.id}/seat", headers=m.auth(0)), m.move(0, "C3", 0), m.resign(0)):
        assert (r.status_code, r.json["error"]["code"], r.json["error"]["details"]) == (401, "token_replaced", {"seat": 0})
        assert (
            "replaced by the umpire" in r.json["error"]["message"]
            and "ask the umpire for the new link" in r.json["error"]["message"]
        )
    assert client.get(f"/v1/matches/{m.id}/seat", headers=bearer(new)).json["seat"] == 0
    for headers in ({}, bearer("never-a-token-of-this-match")):
        r = client.get(f"/v1/matches/{m.id}/seat", headers=headers)
        assert (r.status_code, r.json["error"]["code"]) == (401, "unauthorized")
    assert client.get("/v1/matches/00ghostghostghostg/seat", headers=m.auth(1)).status_code == 404
    assert "token" not in str(m.record()["moves"][-1].get("move"))  # the record never holds a token


def test_the_replaced_tokens_kept_are_bounded(client: FlaskClient, new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    old = [m.tokens[1]]
    for _ in range(REPLACED_KEPT + 2):
        old.append(client.post(f"/v1/matches/{m.id}/seats/1/token", headers=umpire(m)).json["token"])
    current = old.pop()
    codes = [client.get(f"/v1/matches/{m.id}/seat", headers=bearer(t)).json["error"]["code"] for t in old]
    assert codes == ["unauthorized"] * (len(old) - REPLACED_KEPT) + ["token_replaced"] * REPLACED_KEPT
    assert client.get(f"/v1/matches/{m.id}/seat", headers=bearer(current)).json["seat"] == 1
    assert client.get(f"/v1/matches/{m.id}/seat", headers=m.auth(0)).json["seat"] == 0  # the other seat's untouched


def test_the_meta_of_a_match_made_before_reads_as_it_did(client: FlaskClient, new_match: NewMatch, fake_clock: FakeClock) -> None:
    """A match's stored meta gains fields only when it has them: one made before them reads the same."""
    m = new_match("catchup", {"size": 3})
    with client.application.app_context():
        store = get_store()
        text: Any = store.r.hget(store.key(m.id), "meta")
    assert "co_umpires" not in text and "replaced" not in text
