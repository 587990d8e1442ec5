"""Managed matches over HTTP: ``/v1/matches/...`` (API.md "Managed matches").

Each view reads the match from Redis (applying any flag that is due), checks
the request in the order API.md gives, lets :mod:`service.referee` work out
the change and has :mod:`service.store` commit it atomically.  A lost race
(someone changed the match between read and commit) is simply read again:
the second reading answers 409, or replays the first answer when the loser
was a retry of the winner.

``init_app`` wires it all into the factory: configuration, the Redis store
(started embedded when ``REDIS_URL`` is unset), 503 for Redis failures, the
blueprints and the ``flask sweep`` command.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis
from flask import Blueprint, Flask, Response, current_app, request
from marshmallow import ValidationError

from engine.clock import spec_from
from engine.errors import BadOptions
from engine.registry import GAMES, PRESETS, get_game
from service import referee, schemas
from service.errors import ApiError, error_response
from service.history import not_found
from service.http import json_body
from service.referee import Live, Meta
from service.store import Conflict, Gone, Store, make_client
from service.sweeper import Settled, settled

log = logging.getLogger(__name__)

bp = Blueprint("matches", __name__, url_prefix="/v1")

WAIT_MAX_S = 30.0  # API: a read waits at most this long
TOKEN_BYTES = 24  # 192 random bits per seat token
MAX_ATTEMPTS = 8  # reads after lost races before giving up (each loss means someone else made progress)

CONFIG_DEFAULTS: dict[str, Any] = {
    "REDIS_URL": None,  # unset: the embedded Redis on DATA_DIR
    "REDIS_PREFIX": "umpire:",
    "REDIS_TIMEOUT_S": 1.0,  # connect and answer; past it a request gets 503
    "DATA_DIR": "data",
    "MATCH_TTL_S": 30 * 86400,  # finished matches expire after this; ongoing ones never
    "UMPIRE_TOKEN": None,  # when set, creating a match needs it
    "SWEEP_INTERVAL_S": 0.2,  # the longest a sweeper sleeps before looking for new deadlines
    "MATCH_CLOCK": None,  # tests: a callable giving "now" in ms instead of Redis TIME
}
ENV_NUMBERS = {"REDIS_TIMEOUT_S": float, "MATCH_TTL_S": int, "SWEEP_INTERVAL_S": float}


def _plain_move_body() -> dict[str, Any] | None:
    if not request.is_json:
        return None
    try:
        data = request.get_json(silent=True)  # parsed once: json_body reuses it (or fails it) when this gives up
    except RecursionError:
        return None
    return schemas.plain_move(data)


# -- wiring ---------------------------------------------------------------------


def init_app(app: Flask) -> None:
    """Configuration (from the environment unless the app's config says
    otherwise), the store, 503 for Redis failures, routes, ``flask sweep``."""
    for key, default in CONFIG_DEFAULTS.items():
        if key in app.config:
            continue
        raw = os.environ.get(key)
        app.config[key] = default if raw is None or raw == "" else ENV_NUMBERS.get(key, str)(raw)
    app.extensions["umpire.store"] = None
    app.extensions["umpire.store.lock"] = threading.Lock()
    app.extensions["umpire.positions"] = Positions()

    @app.errorhandler(redis.RedisError)
    def _redis_down(err: redis.RedisError) -> Response:
        if not isinstance(err, redis.ConnectionError | redis.TimeoutError):
            log.exception("Redis refused a command")
        reason = "timeout" if isinstance(err, redis.TimeoutError) else "down"
        return error_response(
            503, "unavailable", "The match store (Redis) is not answering; try again shortly.", {"redis": reason}
        )

    from service.health import bp as health_bp
    from service.sweeper import sweep_command

    app.register_blueprint(bp)
    app.register_blueprint(health_bp)
    app.cli.add_command(sweep_command)


def get_store(app: Flask | None = None) -> Store:
    """The app's store, made on first use (so an app that never touches a
    match never needs Redis).  With no ``REDIS_URL`` the embedded server on
    ``DATA_DIR`` is started, or found running, here."""
    app = app or current_app._get_current_object()  # type: ignore[attr-defined]
    store: Store | None = app.extensions["umpire.store"]
    if store is not None:
        return store
    with app.extensions["umpire.store.lock"]:
        store = app.extensions["umpire.store"]
        if store is None:
            cfg = app.config
            url = cfg["REDIS_URL"]
            if not url:
                from service import embedded

                try:
                    url = embedded.start(cfg["DATA_DIR"]).url
                except (OSError, RuntimeError) as e:
                    raise redis.ConnectionError(f"the embedded Redis did not start: {e}") from e
            client = make_client(url, float(cfg["REDIS_TIMEOUT_S"]))
            store = Store(client, cfg["REDIS_PREFIX"], int(cfg["MATCH_TTL_S"]), cfg["MATCH_CLOCK"])
            app.extensions["umpire.store"] = store
    return store


# -- helpers --------------------------------------------------------------------


def bearer() -> str | None:
    """The token of ``Authorization: Bearer <token>``, if any."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def match_json(meta: Meta, live: Live, now: int) -> dict[str, Any]:
    return {
        "match_id": meta.match_id,
        "game": meta.game,
        "state": live.state,
        "clock": referee.clock_json(live, now),
        "ply": live.ply,
    }


def verdict_answer(meta: Meta, live: Live, now: int, verdict: dict[str, Any]) -> dict[str, Any]:
    """The verdict (service/schemas.py's one shape), then the match's fields (clock, ply...)."""
    match = match_json(meta, live, now)
    del match["state"]  # the verdict carries it
    return {**verdict, **match}


def json_text(status: int, text: str, replayed: bool = False) -> Response:
    resp = Response(text, status=status, mimetype="application/json")
    if replayed:
        resp.headers["Idempotent-Replayed"] = "true"
    return resp


def _read(store: Store, match_id: str, answer_fields: list[str] | None = None) -> Settled:
    try:
        return settled(store, match_id, answer_fields or [])
    except Gone:
        raise not_found(match_id) from None


def _seat(meta: Meta) -> int:
    seat = meta.seat_of(bearer())
    if seat is None:
        raise ApiError(401, "unauthorized", "Send a seat token of this match: Authorization: Bearer <token>.")
    return seat


def _gone(live: Live) -> ApiError:
    state = live.state
    return ApiError(
        410,
        "match_finished",
        "The match is over: no more moves or resignations.",
        {"end": state.get("end"), "winner": state["winner"]},
    )


# -- views ----------------------------------------------------------------------


@bp.post("/matches")
def create_match() -> Any:
    cfg = current_app.config
    umpire = cfg["UMPIRE_TOKEN"]
    if umpire and not hmac.compare_digest((bearer() or "").encode(), str(umpire).encode()):
        raise ApiError(401, "unauthorized", "Creating a match needs the umpire token: Authorization: Bearer <token>.")
    body = json_body(schemas.match_create_request)
    game = get_game(body["game"])
    state = game.new(body["options"])
    dumped = game.dump(state)
    spec = spec_from(body["clock"], game.default_preset(dumped["options"]), PRESETS)
    if spec.on_flag == "loses" and game.flag_rule != "loses":
        # A flag can only end a game whose engine ends games on time; Crystal's own rule is R-X6.
        message = f"In {game.title} a flag is handled by R-X6 (on_flag 'proxy'); it cannot lose the game."
        raise BadOptions("clock.on_flag", message)
    options = game.replay_options(body["options"], state)  # e.g. the seed the server drew (R-X1)
    store = get_store()
    tokens = [secrets.token_urlsafe(TOKEN_BYTES) for _ in (0, 1)]
    now = store.now_ms()
    live = referee.start(game, state, spec, now)
    hashes = (referee.token_hash(tokens[0]), referee.token_hash(tokens[1]))
    for _ in range(3):
        meta = Meta(secrets.token_urlsafe(12), game.name, options, now, hashes)
        if store.create(meta.match_id, meta.to_json(), live.to_json(), live.clock.deadline):
            break
    else:  # pragma: no cover - 96 random bits clashing three times
        raise ApiError(503, "unavailable", "Could not find a free match id; try again.")
    get_positions().put(meta.match_id, "0", state)  # create.lua starts the rev at 0
    out = {"match_id": meta.match_id, "seats": {"0": tokens[0], "1": tokens[1]}, **match_json(meta, live, now)}
    return out, 201, {"Location": f"/v1/matches/{meta.match_id}"}


def _wait_args() -> tuple[int | None, float]:
    raw_ply, raw_timeout = request.args.get("wait_ply"), request.args.get("timeout_s")
    wait_ply = None
    if raw_ply is not None:
        if not raw_ply.isdigit():
            raise ApiError(422, "invalid_query", "wait_ply must be a whole number, 0 or more.", {"parameter": "wait_ply"})
        wait_ply = int(raw_ply)
    timeout = WAIT_MAX_S
    if raw_timeout is not None:
        try:
            timeout = float(raw_timeout)
        except ValueError:
            timeout = -1.0
        if not 0 <= timeout <= WAIT_MAX_S:
            raise ApiError(
                422, "invalid_query", f"timeout_s must be a number from 0 to {WAIT_MAX_S:g}.", {"parameter": "timeout_s"}
            )
    return wait_ply, timeout


@bp.get("/matches/<match_id>")
def get_match(match_id: str) -> Any:
    """The match; with ``wait_ply=N`` it answers as soon as the ply passes N,
    the match ends or changes otherwise (a flag), or ``timeout_s`` is up."""
    wait_ply, timeout = _wait_args()
    store = get_store()
    cur = _read(store, match_id)
    if wait_ply is not None:
        end = time.monotonic() + timeout
        first_rev = cur.rev
        while cur.live.ply <= wait_ply and not cur.live.finished and cur.rev == first_rev:
            left = end - time.monotonic()
            if left <= 0:
                break
            deadline = cur.live.clock.deadline
            if deadline is not None:  # wake when a flag falls due, even with no sweeper running
                left = min(left, max(0.0, (deadline + 1 - cur.now) / 1000) + 0.001)
            store.wait_change(match_id, cur.rev, left)
            cur = _read(store, match_id)
    return match_json(cur.meta, cur.live, cur.now)


def _move_keys(ply: int, move: Any) -> list[str]:
    """Where the answer to this move is remembered, for seat 0 and seat 1: same ply, same seat, same move text."""
    digest = hashlib.sha256(referee.canonical(move).encode()).hexdigest()[:32]
    return [f"p:{ply}:0:{digest}", f"p:{ply}:1:{digest}"]


class Positions:
    """Engine states of the matches this process moved last, by match id and
    revision, so that the next move of a match, when it comes to the same
    process, starts from the state object instead of loading its JSON again.

    Only states the engine itself produced are kept (the ``verdict.state`` of
    an accepted move, committed at that revision), so nothing is trusted that
    was not validated; a state read from Redis and not found here is loaded
    and checked as usual, and a client's state never comes near this."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self._states: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, match_id: str, rev: str) -> Any:
        with self._lock:
            return self._states.get((match_id, rev))

    def put(self, match_id: str, rev: str, state: Any) -> None:
        with self._lock:
            self._states[(match_id, rev)] = state
            if len(self._states) > self.size:
                self._states.popitem(last=False)  # the oldest: a match moves on, its earlier revisions are never read again


def get_positions(app: Flask | None = None) -> Positions:
    app = app or current_app._get_current_object()  # type: ignore[attr-defined]
    found: Positions = app.extensions["umpire.positions"]
    return found


@dataclass(frozen=True, slots=True)
class Change:
    """What a view decided to do to a match: the new live part, the record
    entries and remembered answers to commit with it, and the answer to send;
    ``position`` the engine's state of ``live``, when the view has it."""

    live: Live
    entries: list[str]
    remember: list[tuple[str, str]]
    answer: str
    position: Any = None


Answer = Response | tuple[dict[str, Any], int]  # a view's answer as Flask takes it


def _change(
    store: Store, match_id: str, answer_fields: list[str], judge: Callable[[Settled], Change | Answer], what: str
) -> Answer:
    """Read the match, let ``judge`` decide, commit its :class:`Change` if the
    match is still as read; on a lost race, read and judge again.  Whatever
    else ``judge`` returns (a remembered answer, a refusal) is answered as it is."""
    for _ in range(MAX_ATTEMPTS):
        cur = _read(store, match_id, answer_fields)
        change = judge(cur)
        if not isinstance(change, Change):
            return change
        try:
            rev = store.commit(
                match_id, cur.rev, change.live.to_json(), change.live.clock.deadline, change.entries, change.remember
            )
        except Conflict:
            continue  # someone changed the match meanwhile: judge again on what is there now
        except Gone:
            raise not_found(match_id) from None
        if change.position is not None:
            get_positions().put(match_id, str(rev), change.position)
        return json_text(200, change.answer)
    raise ApiError(409, "busy", f"The match changed too often while {what} was judged; send it again.", None)


@bp.post("/matches/<match_id>/moves")
def submit_move(match_id: str) -> Any:
    idem = request.headers.get("Idempotency-Key")
    if idem is not None and not 1 <= len(idem) <= 200:
        raise ApiError(422, "invalid_header", "An Idempotency-Key has 1 to 200 characters.", {"header": "Idempotency-Key"})
    # The body is read first but judged after 404 and 401 (API.md's order).
    body: dict[str, Any] | None = _plain_move_body()
    body_error: Exception | None = None
    if body is None:
        try:
            body = json_body(schemas.match_move_request)
        except (ApiError, ValidationError) as e:
            body_error = e
    # Remembered answers are fetched with the match, for either seat (the token decides which applies).
    wanted = [] if body is None else _move_keys(body["ply"], body["move"]) + ([f"k:{idem}"] if idem else [])

    def judge(cur: Settled) -> Change | Answer:
        seat = _seat(cur.meta)
        if body is None:
            assert body_error is not None
            raise body_error
        move_key = wanted[seat]
        if idem and (by_key := cur.answers[2]) is not None:  # the same Idempotency-Key: the first answer, for this same move
            first_key, answer = by_key.split("\n", 1)
            if first_key != move_key:  # the move key names the seat, the ply and the move
                raise ApiError(
                    422,
                    "idempotency_key_reused",
                    "This Idempotency-Key was used for another move.",
                    {"header": "Idempotency-Key"},
                )
            return json_text(200, answer, replayed=True)
        if (by_move := cur.answers[seat]) is not None:  # the same move for the same ply again: a retry
            return json_text(200, by_move.split("\n", 1)[1], replayed=True)
        live, now = cur.live, cur.now
        if live.finished:
            raise _gone(live)
        if body["ply"] != live.ply:
            raise ApiError(
                409, "stale_ply", f"The match is at ply {live.ply}, not {body['ply']}: someone moved first.", {"ply": live.ply}
            )
        if seat != live.may_move:
            message = "It is not this seat's turn."
            if live.clock.proxy:
                message = "This seat has flagged: only the opponent may move for it now (R-X6)."
            raise ApiError(403, "not_your_turn", message, {"may_move": live.may_move, "proxy": live.clock.proxy})
        game = GAMES[cur.meta.game]
        verdict, new_live, entry = referee.play(game, live, seat, body["move"], now, get_positions().get(match_id, cur.rev))
        if not verdict.legal or entry is None:
            assert verdict.error is not None
            refused = schemas.verdict_json(False, live.state, error=verdict.error.to_json())
            return verdict_answer(cur.meta, live, now, refused), 422
        accepted = schemas.verdict_json(True, new_live.state, move=verdict.move, events=verdict.events)
        answer = referee.compact(verdict_answer(cur.meta, new_live, now, accepted))
        remembered = f"{move_key}\n{answer}"  # what a retry gets, and what its key was for
        remember = [(move_key, remembered)] + ([(f"k:{idem}", remembered)] if idem else [])
        return Change(new_live, [referee.compact(entry)], remember, answer, verdict.state)

    return _change(get_store(), match_id, wanted, judge, "this move")


@bp.post("/matches/<match_id>/resign")
def resign(match_id: str) -> Any:
    """A seat resigns at any time while the match is on; retrying it returns the first answer."""

    def judge(cur: Settled) -> Change | Answer:
        seat = _seat(cur.meta)
        if cur.answers[seat] is not None:
            return json_text(200, cur.answers[seat] or "", replayed=True)
        if cur.live.finished:
            raise _gone(cur.live)
        new_live, entry = referee.resign(GAMES[cur.meta.game], cur.live, seat, cur.now)
        answer = referee.compact({**match_json(cur.meta, new_live, cur.now), "events": entry["events"]})
        return Change(new_live, [referee.compact(entry)], [(f"r:{seat}", answer)], answer)

    return _change(get_store(), match_id, ["r:0", "r:1"], judge, "the resignation")


@bp.get("/matches/<match_id>/moves")
def match_record(match_id: str) -> Any:
    """The record: every move, flag, pass and resignation, and the same as text."""
    store = get_store()
    cur = _read(store, match_id)
    entries = [json.loads(e) for e in store.record(match_id)]
    game = GAMES[cur.meta.game]
    return {
        "match_id": match_id,
        "game": cur.meta.game,
        "options": cur.meta.options,
        "created": referee.iso(cur.meta.created_ms),
        "status": cur.live.state["status"],
        "winner": cur.live.state["winner"],
        "end": cur.live.state.get("end"),
        "moves": entries,
        "text": referee.record_text(game, cur.meta, cur.live, entries),
    }
