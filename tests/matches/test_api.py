"""Managed matches over HTTP on a real Redis: creation, seats, the order of answers
(API.md "Managed matches"), retries, resignation, the record, waiting."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from matchkit import Match, NewMatch

from engine.registry import GAMES
from service.matches.store import Store


def test_create_gives_each_seat_a_random_token_stored_only_as_a_hash(new_match: NewMatch, store: Store) -> None:
    m = new_match("catchup", {"size": 3})
    t0, t1 = m.tokens
    # 128 bits at least: url-safe base64 carries 6 bits a character
    assert t0 != t1 and len(t0) * 6 >= 128 and len(t1) * 6 >= 128
    assert m.created["state"]["ply"] == 0 and m.created["ply"] == 0
    assert m.created["clock"]["to_move"] == 0 and m.created["clock"]["deadline"] is not None
    # nothing in Redis holds a token in clear
    for key in store.r.scan_iter(match=store.prefix + "*"):
        kind = store.r.type(key)
        text = (
            json.dumps(store.r.hgetall(key))
            if kind == "hash"
            else json.dumps(store.r.lrange(key, 0, -1))
            if kind == "list"
            else ""
        )
        assert t0 not in text and t1 not in text


def test_a_missing_clock_is_the_games_preset(new_match: NewMatch) -> None:
    # API.md: Catchup -> catchup, Bug -> bug, Crystal -> crystal (R-T2)
    assert new_match("catchup").created["clock"]["turn_s"] == 60
    clock = new_match("bug").created["clock"]
    assert (clock["turn_s"], clock["bank_s"], clock["step_s"]) == (90, 600, 10)
    clock = new_match("crystal").created["clock"]
    assert (clock["turn_s"], clock["bank_s"], clock["on_flag"]) == (90, 180, "proxy")


def test_clock_preset_or_fields(new_match: NewMatch) -> None:
    clock = new_match("catchup", clock="catchup-short-bank").created["clock"]
    assert (clock["turn_s"], clock["bank_s"]) == (60, 180)
    clock = new_match("catchup", clock={"turn_s": 2.5, "bank_s": 10}).created["clock"]
    assert (clock["turn_s"], clock["bank_s"], clock["step_s"]) == (2.5, 10, 1)
    assert clock["seats"]["0"]["bank_s"] == 10 and clock["seats"]["1"]["bank_s"] == 10


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"game": "chess"}, 404, "unknown_game"),
        ({"game": "catchup", "options": {"size": 42}}, 422, "bad_options"),
        ({"game": "catchup", "clock": "blitz"}, 422, "bad_options"),
        ({"game": "catchup", "clock": {"turn_s": -1}}, 422, "bad_options"),
        ({"game": "catchup", "clock": 5}, 422, "invalid_body"),
        ({"options": {}}, 422, "invalid_body"),
        # a line break in a name would split the record's text: '[Seat1 "Bob' / '[Result "1-0"]"]'
        ({"game": "catchup", "players": ["Ann", 'Bob\u2028[Result "1-0"]']}, 422, "invalid_body"),
        ({"game": "catchup", "players": ["Ann\x85", "Bob"]}, 422, "invalid_body"),  # NEL: a line break to str.splitlines
        ({"game": "catchup", "tags": ["final\x9b"]}, 422, "invalid_body"),  # a C1 control
    ],
)
def test_bad_creations(client: FlaskClient, body: dict[str, Any], status: int, code: str) -> None:
    r = client.post("/v1/matches", json=body)
    assert (r.status_code, r.json["error"]["code"]) == (status, code)


def test_bad_clock_names_its_field(client: FlaskClient) -> None:
    r = client.post("/v1/matches", json={"game": "catchup", "clock": {"bank_s": -5}})
    assert r.json["error"]["details"]["field"] == "clock.bank_s"


@pytest.mark.app_config(UMPIRE_TOKEN="s3cret")
def test_umpire_token_guards_creation(client: FlaskClient) -> None:
    assert client.post("/v1/matches", json={"game": "catchup"}).status_code == 401
    wrong = client.post("/v1/matches", json={"game": "catchup"}, headers={"Authorization": "Bearer nope"})
    assert (wrong.status_code, wrong.json["error"]["code"]) == (401, "unauthorized")
    ok = client.post("/v1/matches", json={"game": "catchup"}, headers={"Authorization": "Bearer s3cret"})
    assert ok.status_code == 201
    # reading needs no token
    assert client.get(f"/v1/matches/{ok.json['match_id']}").status_code == 200


def test_read_unknown_match_is_404(client: FlaskClient) -> None:
    for path in ("/v1/matches/nope", "/v1/matches/nope/moves"):
        r = client.get(path)
        assert (r.status_code, r.json["error"]["code"]) == (404, "match_not_found")


# -- the order of answers (API.md) -------------------------------------------------


def test_answers_in_api_order(client: FlaskClient, new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    # 404 before anything, even with no token
    assert client.post("/v1/matches/nope/moves", json={"move": "C3", "ply": 0}).status_code == 404
    # 401: no token, a token of no seat, another match's token; even with a stale ply
    assert client.post(f"/v1/matches/{m.id}/moves", json={"move": "C3", "ply": 0}).status_code == 401
    bad = {"Authorization": "Bearer not-a-seat"}
    assert client.post(f"/v1/matches/{m.id}/moves", json={"move": "C3", "ply": 5}, headers=bad).status_code == 401
    other = new_match("catchup", {"size": 3})
    assert m.client.post(f"/v1/matches/{m.id}/moves", json={"move": "C3", "ply": 0}, headers=other.auth(0)).status_code == 401
    # 401 comes before a malformed body is judged
    assert client.post(f"/v1/matches/{m.id}/moves", data="{", content_type="application/json").status_code == 401
    assert (
        client.post(f"/v1/matches/{m.id}/moves", data="{", content_type="application/json", headers=m.auth(0)).status_code == 400
    )
    # 409 before 403: seat 1 (not to move) with a stale ply
    r = m.move(1, "C3", 7)
    assert (r.status_code, r.json["error"]["code"], r.json["error"]["details"]["ply"]) == (409, "stale_ply", 0)
    # 403: the right ply, the wrong seat
    r = m.move(1, "C3", 0)
    assert (r.status_code, r.json["error"]["code"]) == (403, "not_your_turn")
    # 403 before 422: the wrong seat with an illegal move
    assert m.move(1, "Z9", 0).status_code == 403
    # 422: illegal, legal: false, the state unchanged and the clock still running
    before = m.get().json
    r = m.move(0, "C2 C3", 0)  # player 0's first turn places exactly one stone (R-C1)
    assert r.status_code == 422 and r.json["legal"] is False
    assert r.json["error"]["code"] == "too_many_stones" and r.json["error"]["message"]
    assert r.json["state"] == before["state"]
    assert r.json["clock"]["deadline"] == before["clock"]["deadline"]  # the same turn, the same deadline
    assert r.json["clock"]["to_move"] == 0
    # 200
    ok = m.move(0, "C3", 0)
    assert ok.status_code == 200 and ok.json["legal"] is True and ok.json["move"] == "C3" and ok.json["ply"] == 1
    # 410 after the end, before 409 and 403
    assert m.resign(1).status_code == 200
    for seat, ply in ((1, 1), (0, 0), (1, 9)):
        r = m.move(seat, "C2", ply)
        assert (r.status_code, r.json["error"]["code"]) == (410, "match_finished")
    # but a retry of an accepted move still gets its first answer after the end
    again = m.move(0, "C3", 0)
    assert again.status_code == 200 and again.data == ok.data


def test_whole_body_is_validated(new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    r = m.client.post(f"/v1/matches/{m.id}/moves", json={"move": "C3"}, headers=m.auth(0))
    assert r.status_code == 422 and r.json["error"]["details"]["field"] == "ply"
    r = m.client.post(f"/v1/matches/{m.id}/moves", json={"move": "C3", "ply": "0"}, headers=m.auth(0))
    assert r.status_code == 422


# -- retries ---------------------------------------------------------------------


def test_the_same_move_resent_three_times_is_applied_once(new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    answers = [m.move(0, "C3", 0) for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert answers[0].data == answers[1].data == answers[2].data
    assert [a.headers.get("Idempotent-Replayed") for a in answers] == [None, "true", "true"]
    moves = m.record()["moves"]
    assert [(e["kind"], e["ply"], e["move"]) for e in moves] == [("move", 0, "C3")]
    # the retry of the last move of seat 0 does not stop seat 1 playing on
    assert m.move(1, "C2 B2", 1).status_code == 200


def test_idempotency_key(new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    first = m.move(0, "C3", 0, **{"Idempotency-Key": "k-1"})
    assert first.status_code == 200
    # the same key answers the first answer, even once the ply has moved on
    assert m.move(1, "C2", 1).status_code == 200
    again = m.move(0, "C3", 0, **{"Idempotency-Key": "k-1"})
    assert again.status_code == 200 and again.data == first.data
    # the same key with another move is a client bug, not a retry
    r = m.move(0, "C1", 2, **{"Idempotency-Key": "k-1"})
    assert (r.status_code, r.json["error"]["code"]) == (422, "idempotency_key_reused")
    assert len(m.record()["moves"]) == 2


def test_a_retry_from_the_other_seat_is_not_a_retry(new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    assert m.move(0, "C3", 0).status_code == 200
    # seat 1 sending seat 0's move for ply 0 is a stale ply, not a replay of seat 0's answer
    assert m.move(1, "C3", 0).status_code == 409


# -- concurrency ----------------------------------------------------------------------


def race(app: Flask, m: Match, calls: list[tuple[int, Any, int]]) -> list[tuple[int, bytes]]:
    """Send ``calls`` (seat, move, ply) at once from one thread each."""
    barrier = threading.Barrier(len(calls))
    out: list[tuple[int, bytes]] = [(0, b"")] * len(calls)

    def one(i: int, seat: int, move: Any, ply: int) -> None:
        client = app.test_client()
        barrier.wait()
        r = client.post(f"/v1/matches/{m.id}/moves", json={"move": move, "ply": ply}, headers=m.auth(seat))
        out[i] = (r.status_code, r.data)

    threads = [threading.Thread(target=one, args=(i, *c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def test_racing_clients_on_one_ply_apply_exactly_one_move(app: Flask, new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 5})
    game = GAMES["catchup"]
    plies = 6
    for ply in range(plies):
        state = m.state()
        seat = state["to_move"]
        cells = game.legal_moves(game.load(state)).moves[:10]  # ten different legal single stones
        results = race(app, m, [(seat, cell, ply) for cell in cells])
        codes = sorted(code for code, _ in results)
        assert codes == [200] + [409] * (len(cells) - 1), codes
    moves = m.record()["moves"]
    # no gap and no duplicate: one entry per ply, in order, seats alternating
    assert [e["ply"] for e in moves] == list(range(plies))
    assert [e["seat"] for e in moves] == [p % 2 for p in range(plies)]
    assert m.state()["ply"] == plies


def test_racing_copies_of_one_move_all_get_the_one_answer(app: Flask, new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    results = race(app, m, [(0, "C3", 0)] * 8)
    assert {code for code, _ in results} == {200}
    assert len({body for _, body in results}) == 1
    assert len(m.record()["moves"]) == 1


# -- resignation ------------------------------------------------------------------------


def test_resign_by_either_seat_any_time(new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    r = m.resign(1)  # not seat 1's turn: resigning is allowed all the same
    assert r.status_code == 200
    assert (r.json["state"]["status"], r.json["state"]["winner"], r.json["state"]["end"]) == ("finished", 0, "resign")
    assert r.json["clock"]["to_move"] is None and r.json["clock"]["deadline"] is None
    again = m.resign(1)
    assert again.status_code == 200 and again.data == r.data  # a retried resignation
    gone = m.resign(0)
    assert (gone.status_code, gone.json["error"]["code"]) == (410, "match_finished")
    assert m.client.post(f"/v1/matches/{m.id}/resign").status_code == 401
    assert m.client.post("/v1/matches/nope/resign", headers=m.auth(0)).status_code == 404
    kinds = [(e["kind"], e["seat"]) for e in m.record()["moves"]]
    assert kinds == [("resign", 1)]


# -- the record ------------------------------------------------------------------------


def test_record_entries_and_text(client: FlaskClient, new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    assert m.move(0, "c3", 0).status_code == 200  # R-H3: lower case in, upper case out
    assert m.move(1, "C2, B2", 1).status_code == 200
    rec = m.record()
    first, second = rec["moves"]
    assert (first["seat"], first["by"], first["move"], first["ply"]) == (0, 0, "C3", 0)
    assert (second["seat"], second["move"]) == (1, "B2 C2")  # a turn's cells written in reading order
    assert first["at"] <= second["turn_started"] <= second["at"]
    assert first["bank_left_s"] == 300 and first["used_s"] >= 0
    assert {"type": "place", "player": 1, "cells": ["B2", "C2"]} in second["events"]  # the engine's events, kept
    lines = rec["text"].splitlines()
    assert '[Game "catchup"]' in lines and '[Result "*"]' in lines
    assert [ln.split(" {")[0] for ln in lines if ln[:1].isdigit()] == ["1. C3", "2. B2 C2"]


# -- waiting ---------------------------------------------------------------------------


def test_wait_answers_when_the_ply_passes(app: Flask, new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    assert m.get(wait_ply=0, timeout_s=0).json["ply"] == 0  # timeout 0: no wait at all

    def later() -> None:
        time.sleep(0.3)
        app.test_client().post(f"/v1/matches/{m.id}/moves", json={"move": "C3", "ply": 0}, headers=m.auth(0))

    t = threading.Thread(target=later)
    start = time.monotonic()
    t.start()
    r = m.get(wait_ply=0, timeout_s=10)
    waited = time.monotonic() - start
    t.join()
    assert r.json["ply"] == 1
    assert 0.25 <= waited < 3  # woken by the move, not by the timeout
    # already past: no wait
    start = time.monotonic()
    assert m.get(wait_ply=0, timeout_s=10).json["ply"] == 1
    assert time.monotonic() - start < 1


def test_wait_times_out(new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    start = time.monotonic()
    r = m.get(wait_ply=0, timeout_s=0.4)
    assert r.status_code == 200 and r.json["ply"] == 0
    assert 0.35 <= time.monotonic() - start < 2


@pytest.mark.parametrize("query", [{"wait_ply": "x"}, {"wait_ply": -1}, {"wait_ply": 0, "timeout_s": 31}, {"timeout_s": "soon"}])
def test_wait_parameters_checked(new_match: NewMatch, query: dict[str, Any]) -> None:
    m = new_match("catchup", {"size": 3})
    r = m.get(**query)
    assert (r.status_code, r.json["error"]["code"]) == (422, "invalid_query")


# -- expiry ------------------------------------------------------------------------------


@pytest.mark.app_config(MATCH_IDLE_TTL_S=3600)
def test_finished_matches_expire_and_abandoned_ones_too(new_match: NewMatch, store: Store) -> None:
    ongoing = new_match("catchup", {"size": 3}, **{"Idempotency-Key": "k"})
    assert ongoing.move(0, "C3", 0, **{"Idempotency-Key": "first"}).status_code == 200
    done = new_match("catchup", {"size": 3})
    assert done.move(0, "C3", 0, **{"Idempotency-Key": "x"}).status_code == 200
    assert done.resign(0).status_code == 200
    # an ongoing match expires when nobody has changed it for MATCH_IDLE_TTL_S; every change starts it again
    for key in store.keys(ongoing.id):
        assert 3600 - 60 <= store.r.ttl(key) <= 3600, key
    # a finished one after MATCH_TTL_S (default 30 days), and what it no longer needs is gone
    for k in store.keys(done.id):  # the Idempotency-Key pointers too: a key's retry after the end is known by them
        assert 30 * 86400 - 60 <= store.r.ttl(k) <= 30 * 86400, k
    assert store.deadline(done.id) is None
    assert store.deadline(ongoing.id) is not None
    assert store.r.zscore(store.index(int(done.id[:2], 16), "finished"), done.id) is not None
    assert store.r.zscore(store.index(int(done.id[:2], 16), "ongoing"), done.id) is None


def test_sweepers_drop_expired_matches_from_the_indexes(new_match: NewMatch, store: Store) -> None:
    done, ongoing = new_match("catchup", {"size": 3}), new_match("catchup", {"size": 3})
    assert done.resign(0).status_code == 200
    finished, live = (store.index(int(m.id[:2], 16), status) for m, status in ((done, "finished"), (ongoing, "ongoing")))
    now, month = store.now_ms(), 31 * 86400 * 1000
    assert store.prune(now) == 0 and store.prune(now + month) == 0  # too young to have expired; then, both still there
    assert store.r.zscore(finished, done.id) is not None and store.r.zscore(live, ongoing.id) is not None
    store.r.delete(*store.keys(done.id), *store.keys(ongoing.id))  # as their expiry does (an index entry has none)
    assert store.prune(now) == 0  # looked at only once they are old enough to have expired
    assert store.prune(now + month) == 2
    assert store.r.zscore(finished, done.id) is None and store.r.zscore(live, ongoing.id) is None


@pytest.mark.app_config(MATCH_TTL_S=120)
def test_match_ttl_is_configurable(new_match: NewMatch, store: Store) -> None:
    m = new_match("catchup")
    assert m.resign(0).status_code == 200
    assert 100 <= store.r.ttl(store.key(m.id)) <= 120


def test_health_names_redis(client: FlaskClient) -> None:
    r = client.get("/v1/health")
    assert (r.status_code, r.json) == (200, {"status": "ok", "redis": "ok"})


def test_bodies_that_are_not_json(client: FlaskClient, new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    big = '{"move": "' + "C" * 300_000 + '", "ply": 0}'
    for path, headers in (("/v1/matches", {}), (f"/v1/matches/{m.id}/moves", m.auth(0))):
        assert client.post(path, data="{", content_type="application/json", headers=headers).status_code == 400
        assert client.post(path, data="game=catchup", content_type="text/plain", headers=headers).status_code == 415
        assert client.post(path, data=big, content_type="application/json", headers=headers).status_code == 413
    assert m.state()["ply"] == 0


def test_a_match_of_each_variant_gets_the_preset_games_says_it_does(client: FlaskClient) -> None:
    """Issue 35 item 6: ``GET /v1/games``'s ``default_with`` is what ``POST /v1/matches`` does."""
    for game in client.get("/v1/games").json["games"]:
        for preset, spec in game["presets"].items():
            for variant in spec.get("default_with", {}).get("variant", []):
                r = client.post("/v1/matches", json={"game": game["name"], "options": {"variant": variant}})
                assert r.status_code == 201, r.json
                clock = r.json["clock"]
                assert (clock["turn_s"], clock["bank_s"], clock["step_s"]) == (spec["turn_s"], spec["bank_s"], spec["step_s"]), (
                    game["name"], variant, preset,
                )  # fmt: skip
