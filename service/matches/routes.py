"""Managed matches over HTTP: ``/v1/matches/...`` (API.md "Managed matches").

Each view reads the match from Redis (applying any flag that is due), checks
the request in the order API.md gives, lets :mod:`service.matches.referee` work out
the change and has :mod:`service.matches.store` commit it atomically.  A lost race
(someone changed the match between read and commit) is simply read again:
the second reading answers 409, or replays the first answer when the loser
was a retry of the winner.  A retried move's answer is rebuilt from the
record (nothing of it is stored); a waiting request sleeps on the process's
hub (service/matches/hub.py) until the match changes.

``create_app`` (service/__init__.py) registers the blueprint and the two error
handlers below (503 for Redis failures).
"""

from __future__ import annotations

import hmac
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis
from flask import Blueprint, Response, current_app, request
from marshmallow import ValidationError
from redis.exceptions import ClusterDownError

from engine.clock import STARTS, spec_from
from engine.errors import BadOptions
from engine.game import Outcome
from engine.registry import GAMES, PRESETS, get_game
from service.api.games import record_format
from service.matches import outbox, referee
from service.matches.answers import ended_answer, forfeit_answer, match_view, move_answer
from service.matches.cas import Settled, retried, settled
from service.matches.db import get_hub, get_positions, get_store
from service.matches.events import crowded
from service.matches.hub import Crowded
from service.matches.jsontext import compact
from service.matches.keys import new_match_id
from service.matches.match import Live, Meta, move_digest, token_hash
from service.matches.record import Entry, entries_of, iso, last_step, walk
from service.matches.store import Gone, NoReplicas, Store, Unconfirmed
from service.matches.transcript import record_moves, record_text
from service.web import schemas
from service.web.errors import ApiError, api_error, error_response
from service.web.http import json_body
from service.web.metrics import MOVES, REDIS_ERRORS

log = logging.getLogger(__name__)

bp = Blueprint("matches", __name__, url_prefix="/v1")

WAIT_MAX_S = 30.0  # API: a read waits at most this long
TOKEN_BYTES = 24  # 192 random bits per seat token
LIST_MAX = 200
STATUSES = ("ongoing", "finished")


# -- wiring ---------------------------------------------------------------------


def redis_unavailable(err: redis.RedisError) -> Response:
    """503 for a Redis failure (registered in create_app): misconfigured, no replica, down or timed out."""
    from service.matches.health import misconfiguration

    why = misconfiguration(err)
    if why is not None:
        return error_response("unavailable", why, {"redis": "misconfigured"})
    if isinstance(err, NoReplicas):  # min-replicas-to-write: the master refused the change, nothing applied
        log.warning("Redis refused a write for want of replicas: %s", err)
        REDIS_ERRORS.labels("no_replica").inc()
        message = "The match store (Redis) has no replica to keep the change on; nothing changed. Try again shortly."
        return error_response("unavailable", message, {"redis": "no_replica"})
    if isinstance(err, ClusterDownError):  # an outage of the cluster (a master failed), not a fault of ours
        log.warning("Redis Cluster is down: %s", err)
    elif not isinstance(err, redis.ConnectionError | redis.TimeoutError):
        log.exception("Redis refused a command")
    reason = "timeout" if isinstance(err, redis.TimeoutError) else "down"
    REDIS_ERRORS.labels(reason).inc()
    return error_response("unavailable", "The match store (Redis) is not answering; try again shortly.", {"redis": reason})


def unconfirmed_change(err: Unconfirmed) -> Response:
    """A change made on the way (a flag applied by a read) whose commit was not confirmed (registered in create_app)."""
    found = unconfirmed(err, "a change to the match")
    return api_error(found)


# -- helpers --------------------------------------------------------------------


def bearer() -> str | None:
    """The token of ``Authorization: Bearer <token>``, if any."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def json_text(status: int, value: Any, replayed: bool = False) -> Response:
    resp = Response(value if isinstance(value, str) else compact(value), status=status, mimetype="application/json")
    if replayed:
        resp.headers["Idempotent-Replayed"] = "true"
    return resp


AGAIN = (
    "Send the same request again, with the same ply and Idempotency-Key, which is safe: if it was applied, the retry "
    "gets the first answer (once a replica has it), else it is applied now."
)


def unconfirmed(err: Unconfirmed, what: str, again: str = AGAIN) -> ApiError:
    """503 ``outcome_unknown`` for a change Redis did not confirm (service/matches/store.py ``Unconfirmed``)."""
    REDIS_ERRORS.labels("outcome_unknown").inc()
    log.warning("Redis did not confirm %s (%s): %s", what, err.reason, err)
    if err.reason == "no_replica":
        why = f"The match store (Redis) applied {what} but no replica confirmed it in time: it may be lost if Redis fails now."
    else:
        why = f"Redis did not confirm {what}: it may or may not have been applied."
    return ApiError("outcome_unknown", f"{why} {again}", {"retry": True})


def not_found(match_id: str) -> ApiError:
    return ApiError("match_not_found", f"There is no match '{match_id}' (never created, or expired).")


def read(store: Store, match_id: str, idempotency_key: str | None = None) -> Settled:
    try:
        return settled(store, match_id, idempotency_key)
    except Gone:
        raise not_found(match_id) from None


def _seat(meta: Meta) -> int:
    seat = meta.seat_of(bearer())
    if seat is None:
        raise ApiError("unauthorized", "Send a seat token of this match: Authorization: Bearer <token>.")
    return seat


def _admin() -> None:
    """The admin token, or 401 (none sent, or not it); 403 when the server has none at all."""
    token, sent = current_app.config["ADMIN_TOKEN"], bearer()
    if sent is None:
        raise ApiError("unauthorized", "Send the admin token: Authorization: Bearer <token>.")
    if not token:
        raise ApiError("admin_disabled", "Listing matches needs ADMIN_TOKEN set on the server.")
    if not hmac.compare_digest(sent.encode(), str(token).encode()):
        raise ApiError("unauthorized", "That is not the admin token.")


def _gone(live: Live) -> ApiError:
    state = live.state
    return ApiError(
        "match_finished",
        "The match is over: no more moves or resignations.",
        {"end": state.get("end"), "winner": state["winner"]},
    )


def _flag(name: str) -> bool:
    raw = request.args.get(name)
    if raw is None:
        return False
    if raw.lower() not in ("1", "true", "0", "false"):
        raise ApiError("invalid_query", f"{name} must be true or false.", {"parameter": name})
    return raw.lower() in ("1", "true")


def legal_moves(game_name: str, state: Any, complete: bool = False, limit: int | None = None) -> Any:
    """The legal moves for the seat to move, as ``POST /legal-moves`` lists them (null once finished):
    with ``complete``, every whole move (at most ``limit``, by default ``schemas.COMPLETE_LIMIT``)."""
    game = GAMES[game_name]
    position = game.load(state) if isinstance(state, dict) else state
    if game.is_over(position):
        return None
    found = game.complete_moves(position, limit or schemas.COMPLETE_LIMIT) if complete else game.legal_moves(position, limit)
    out = {"moves": found.moves, "count": len(found.moves), "truncated": found.truncated, "complete": found.complete}
    return {**out, **found.info}


def with_legal(answer: dict[str, Any], game: str, state: Any) -> dict[str, Any]:
    """``answer`` plus ``legal_moves`` when the request asked for them (``?legal_moves=true``;
    ``&complete=true`` for whole moves, ``&legal_limit=N`` to cap the list)."""
    complete = _flag("complete")
    limit = _number("legal_limit", 1, 100000, whole=True)
    if _flag("legal_moves"):
        answer = {**answer, "legal_moves": legal_moves(game, state, complete, None if limit is None else int(limit))}
    return answer


# -- views ----------------------------------------------------------------------


@bp.post("/matches")
def create_match() -> Any:
    umpire = current_app.config["UMPIRE_TOKEN"]
    if umpire and not hmac.compare_digest((bearer() or "").encode(), str(umpire).encode()):
        raise ApiError("unauthorized", "Creating a match needs the umpire token: Authorization: Bearer <token>.")
    body = json_body(schemas.match_create_request)
    hooks = outbox.check(body["webhooks"])  # 422 naming webhooks.N.url the server will not post to (WEBHOOK_ALLOW)
    game = get_game(body["game"])
    state = game.new(body["options"])
    dumped = game.dump(state)
    raw_clock, when = _clock_start(body["clock"])
    spec = spec_from(raw_clock, game.default_preset(dumped["options"]), PRESETS)
    if spec.on_flag == "loses" and game.flag_rule != "loses":
        # A flag can only end a game whose engine ends games on time; Crystal's own rule is R-X6.
        message = f"In {game.title} a flag is handled by R-X6 (on_flag 'proxy'); it cannot lose the game."
        raise BadOptions("clock.on_flag", message)
    options = game.replay_options(body["options"], state)  # e.g. the seed the server drew (R-X1)
    players = body["players"] or [None, None]
    store = get_store()
    tokens = [secrets.token_urlsafe(TOKEN_BYTES) for _ in (0, 1)]
    hashes = (token_hash(tokens[0]), token_hash(tokens[1]))
    umpire_token = secrets.token_urlsafe(TOKEN_BYTES)
    for _ in range(3):
        match_id = new_match_id()
        now = store.now_ms(match_id)
        live = referee.start(game, state, spec, now, when)
        meta = Meta(
            match_id, game.name, options, now, hashes, spec, (players[0], players[1]), tuple(body["tags"]), body["illegal"],
            token_hash(umpire_token), when,
        )  # fmt: skip
        try:
            made = store.create(match_id, meta.to_json(), live.to_json(), live.clock.deadline, now, live.finished)
        except Unconfirmed as e:
            again = "Create it again: a match made without its answer has no seat anyone holds, and expires unused."
            raise unconfirmed(e, "the new match", again) from None
        if made:
            break
    else:  # pragma: no cover - 96 random bits clashing three times
        raise ApiError("unavailable", "Could not find a free match id; try again.")
    if hooks:  # before the answer, so before any move: the deliverer posts every change (service/matches/webhooks.py)
        outbox.register(store, match_id, hooks, live.finished)
    get_positions().put(match_id, "0", state)  # create.lua starts the rev at 0
    out = {
        "match_id": match_id, "seats": {"0": tokens[0], "1": tokens[1]}, "umpire": umpire_token, **match_view(meta, live, now)
    }  # fmt: skip
    return with_legal(out, game.name, state), 201, {"Location": f"/v1/matches/{match_id}"}


match_view = match_view


def _clock_start(raw: Any) -> tuple[Any, str]:
    """A match's ``clock`` without its ``start`` (engine.clock.STARTS; ``created`` when left out), and the start."""
    if not isinstance(raw, dict) or "start" not in raw:
        return raw, "created"
    when = raw["start"]
    if when not in STARTS:
        raise BadOptions("clock.start", f"clock.start must be one of {', '.join(STARTS)}.")
    return {k: v for k, v in raw.items() if k != "start"}, when


def _number(name: str, least: float, most: float, whole: bool) -> float | None:
    raw = request.args.get(name)
    if raw is None:
        return None
    try:
        value = float(raw) if not whole else int(raw)
    except ValueError:
        value = least - 1
    if not least <= value <= most:
        kind = "a whole number" if whole else "a number"
        raise ApiError("invalid_query", f"{name} must be {kind} from {least:g} to {most:g}.", {"parameter": name})
    return value


def wait(store: Store, match_id: str, cur: Settled, done: Callable[[Settled], bool], timeout_s: float) -> Settled:
    """``cur`` once ``done`` says so, the match has finished, or ``timeout_s``
    is up: woken by the hub when the match changes, and when a flag falls
    due (so a wait ends on time even with no sweeper running)."""
    if done(cur) or cur.live.finished:
        return cur
    end = time.monotonic() + timeout_s
    hub = get_hub()
    try:
        release = hub.admit(match_id, request.remote_addr)  # MAX_LISTENERS_PER_MATCH, _PER_ADDRESS (service/web/guard.py)
    except Crowded as err:
        raise crowded(err) from None
    try:
        with hub.watch(match_id) as changed:
            cur = read(store, match_id)  # after registering: a change since the first read is seen
            while not done(cur) and not cur.live.finished:
                left = end - time.monotonic()
                if left <= 0:
                    break
                deadline = cur.live.clock.deadline
                if deadline is not None:
                    left = min(left, max(0.0, (deadline + 1 - cur.now) / 1000) + 0.001)
                changed.wait(left)
                changed.clear()
                cur = read(store, match_id)
    finally:
        release()
    return cur


@bp.get("/matches/<match_id>")
def get_match(match_id: str) -> Any:
    """The match; with ``wait_ply=N`` it answers as soon as the ply passes N
    or the match changes otherwise (a flag), with ``wait_turn=S`` as soon as
    seat S may move; either way when it finishes, or when ``timeout_s`` is up."""
    wait_ply = _number("wait_ply", 0, 10**9, whole=True)
    wait_turn = _number("wait_turn", 0, 1, whole=True)
    timeout = _number("timeout_s", 0, WAIT_MAX_S, whole=False)
    store = get_store()
    cur = read(store, match_id)
    if wait_ply is not None or wait_turn is not None:
        first = cur.rev

        def done(now: Settled) -> bool:
            if wait_turn is not None and now.live.may_move == wait_turn:
                return True
            return wait_ply is not None and (now.live.ply > wait_ply or now.rev != first)

        cur = wait(store, match_id, cur, done, WAIT_MAX_S if timeout is None else timeout)
    return with_legal(match_view(cur.meta, cur.live, cur.now), cur.meta.game, cur.live.state)


@dataclass(frozen=True, slots=True)
class Change:
    """What a view decided to do to a match: the new live part, the record
    entries and Idempotency-Key pointers to commit with it, and the answer
    (with its status); ``position`` the engine's state of ``live``, when the
    view has it."""

    live: Live
    entries: list[Entry]
    pointers: list[tuple[str, str]]
    answer: dict[str, Any]
    status: int = 200
    position: Any = None
    verdict: str | None = None  # a judged move: accepted, illegal or forfeit (service/web/metrics.py)
    meta: Meta | None = None  # the match's new meta (an umpire reissued a seat's token)


Answer = Response | tuple[Any, int]  # a view's answer as Flask takes it


def change(store: Store, match_id: str, idem: str | None, judge: Callable[[Settled], Change | Answer], what: str) -> Answer:
    """Read the match, let ``judge`` decide, commit its :class:`Change` if the
    match is still as read; on a lost race, read and judge again.  Whatever
    else ``judge`` returns (a replayed answer, a refusal) is answered as it is.

    A commit whose fate is unknown (Redis timed out or dropped the connection
    once the script may have been sent, whatever the error says; or, with
    REDIS_DURABILITY=replica, no replica confirmed it in time) answers 503
    ``outcome_unknown``: sending the same request again, with the same ply
    (and key), is safe.  An answer rebuilt from the record (a retry) is given
    once the match's master has it on a replica too (:meth:`Store.confirm`)."""

    def attempt() -> Answer:
        cur = read(store, match_id, idem)
        decided = judge(cur)
        if not isinstance(decided, Change):
            if isinstance(decided, Response) and decided.headers.get("Idempotent-Replayed"):
                try:
                    store.confirm(match_id)  # the first attempt's commit may not be on a replica yet
                except Unconfirmed as e:
                    raise unconfirmed(e, what) from None
            return decided
        new = decided.live
        try:
            rev = store.commit(
                match_id,
                cur.rev,
                new.to_json(),
                new.clock.deadline,
                [compact(e.to_json()) for e in decided.entries],
                decided.pointers,
                new.finished_ms if new.finished and not cur.live.finished else None,
                None if decided.meta is None else decided.meta.to_json(),
            )  # a Conflict (someone changed the match meanwhile): judged again on what is there now
        except Gone:
            raise not_found(match_id) from None
        except Unconfirmed as e:  # once the commit may have been sent, a failure is never "nothing changed"
            raise unconfirmed(e, what) from None
        if decided.position is not None:
            get_positions().put(match_id, str(rev), decided.position)
        if decided.verdict is not None:
            MOVES.labels(cur.meta.game, decided.verdict).inc()
        return json_text(decided.status, decided.answer)

    return retried(attempt, lambda: ApiError("busy", f"The match changed too often while {what} was judged; send it again."))


def replayed(store: Store, cur: Settled, seat: int, ply: int, move: Any) -> Answer | None:
    """The first answer to this seat's move (or forfeiting illegal move) for
    ``ply``, rebuilt from the record, when ``move`` is that move again; else None."""
    entries = entries_of(store.record(cur.meta.match_id))
    index = next(
        (i for i, e in enumerate(entries) if e.ply == ply and e.by == seat and (e.kind == "move" or e.forfeited)),
        None,
    )
    if index is None:
        return None
    game = GAMES[cur.meta.game]
    step = last_step(game, cur.meta, entries[: index + 1])
    made = step.entry
    before, after = game.dump(step.before), game.dump(step.after)
    if made.kind == "move":
        if game.play(step.before, move).move != made.move:
            return None  # another move for that ply: not a retry
        answer = move_answer(cur.meta, made, before, after, step.events)
        return json_text(200, with_legal(answer, game.name, step.after), replayed=True)
    raw = move if isinstance(move, str) else compact(list(move))
    if raw != made.move:
        return None
    answer = forfeit_answer(cur.meta, made, before, after, step.events)
    return json_text(422, with_legal(answer, game.name, step.after), replayed=True)


@bp.post("/matches/<match_id>/moves")
def submit_move(match_id: str) -> Any:
    idem = _idempotency_key()
    # The body is read first but judged after 404 and 401 (API.md's order).
    body: dict[str, Any] | None = _plain_move_body()
    body_error: Exception | None = None
    if body is None:
        body, body_error = _body(schemas.match_move_request)
    key = None if idem is None else f"k:{idem}"

    def judge(cur: Settled) -> Change | Answer:
        seat = _seat(cur.meta)
        if body is None:
            assert body_error is not None
            raise body_error
        live, now, meta = cur.live, cur.now, cur.meta
        digest = move_digest(body["move"])
        if cur.pointer is not None:  # the same Idempotency-Key again: the first answer, for this same move
            ply, first_seat, first_digest = cur.pointer.split(" ")
            if int(first_seat) != seat or first_digest != digest or int(ply) != body["ply"]:
                raise ApiError(
                    "idempotency_key_reused",
                    "This Idempotency-Key was used for another move.",
                    {"header": "Idempotency-Key"},
                )
        if body["ply"] < live.ply or (live.finished and body["ply"] == live.ply):
            first = replayed(store, cur, seat, body["ply"], body["move"])  # a retry of an applied move?
            if first is not None:
                return first
        if live.finished:
            raise _gone(live)
        if body["ply"] != live.ply:
            raise ApiError(
                "stale_ply", f"The match is at ply {live.ply}, not {body['ply']}: someone moved first.", {"ply": live.ply}
            )
        _running_for_moves(meta, live)
        if seat != live.may_move:
            message = "It is not this seat's turn."
            if live.clock.proxy:
                message = "This seat has flagged: only the opponent may move for it now (R-X6)."
            raise ApiError("not_your_turn", message, {"may_move": live.may_move, "proxy": live.clock.proxy})
        game = GAMES[meta.game]
        position = get_positions().get(match_id, cur.rev)
        result = referee.judge(game, meta, live, seat, body["move"], now, position, book=bool(body.get("book")))
        pointers = [] if key is None else [(key, f"{live.ply} {seat} {digest}")]
        if isinstance(result, referee.Accepted):
            answer = with_legal(result.answer, game.name, result.position)
            return Change(result.live, [result.entry], pointers, answer, 200, result.position, "accepted")
        if isinstance(result, referee.Forfeit):
            answer = with_legal(result.answer, game.name, result.live.state)
            return Change(result.live, [result.entry], pointers, answer, 422, verdict="forfeit")
        answer = with_legal(result.answer, game.name, position or live.state)
        return Change(live, [result.entry], [], answer, 422, verdict="illegal")

    store = get_store()
    return change(store, match_id, key, judge, "this move")


def _plain_move_body() -> dict[str, Any] | None:
    if not request.is_json:
        return None
    try:
        data = request.get_json(silent=True)  # parsed once: json_body reuses it (or fails it) when this gives up
    except RecursionError:
        return None
    return schemas.plain_move(data)


def _end_change(kind: str, who: int | None, cur: Settled) -> Change | Answer:
    """A resignation (``who`` the seat) or an abort; the same again returns the first answer."""
    game = GAMES[cur.meta.game]
    if cur.live.finished:
        return _ended_again(cur, lambda last: last.kind == kind and (who is None or last.seat == who))
    if kind == "resign":
        assert who is not None
        ended = referee.resign(game, cur.meta, cur.live, who, cur.now)
    else:
        ended = referee.abort(game, cur.meta, cur.live, cur.now)
    return Change(ended.live, [ended.entry], [], ended.answer)


def _ended_again(cur: Settled, same: Callable[[Entry], bool]) -> Answer:
    """A finished match's first answer to the end that finished it, when ``same`` says this
    request is that end again (a retried resignation, abort or adjudication); else 410."""
    entries = entries_of(get_store().record(cur.meta.match_id))
    last = entries[-1] if entries else None
    if last is None or not same(last):
        raise _gone(cur.live)
    game = GAMES[cur.meta.game]
    step = last_step(game, cur.meta, entries)
    return json_text(200, ended_answer(cur.meta, last, game.dump(step.after), step.events), replayed=True)


@bp.post("/matches/<match_id>/resign")
def resign(match_id: str) -> Any:
    """A seat resigns at any time while the match is on; retrying it returns the first answer."""
    return change(get_store(), match_id, None, lambda cur: _end_change("resign", _seat(cur.meta), cur), "the resignation")


# -- the umpire's controls over a live match (issue 22) ------------------------------------


def _umpire(meta: Meta) -> None:
    """This match's umpire token, or the server's ``ADMIN_TOKEN``: else 401 (none sent, or
    one nobody knows) or 403 ``not_umpire`` (a seat's token: a player is not the umpire)."""
    sent = bearer()
    if sent is None:
        raise ApiError("unauthorized", "Send the match's umpire token: Authorization: Bearer <token>.")
    if meta.is_umpire(sent):
        return
    admin = current_app.config["ADMIN_TOKEN"]
    if admin and hmac.compare_digest(sent.encode(), str(admin).encode()):
        return
    if meta.seat_of(sent) is not None:
        raise ApiError("not_umpire", "That is a seat's token: only the match's umpire may do this.")
    raise ApiError("unauthorized", "That is not this match's umpire token.")


def _running_for_moves(meta: Meta, live: Live) -> None:
    """409 for a move while the clocks are paused, or before the umpire's start (``clock.start: umpire``)."""
    clock = live.clock
    if clock.paused:
        raise ApiError("paused", "The umpire has paused the clocks: no moves until they resume.")
    if not clock.started and meta.start == "umpire":
        raise ApiError("not_started", "The match waits for the umpire's start: no moves before it.")


def _ongoing(cur: Settled) -> None:
    if cur.live.finished:
        raise _gone(cur.live)


def _umpire_change(match_id: str, what: str, act: Callable[[Settled], Change | Answer], key: str | None = None) -> Answer:
    """``act`` on the match once the umpire is known (API.md's order: 404, then 401/403, then the rest)."""

    def judge(cur: Settled) -> Change | Answer:
        _umpire(cur.meta)
        return act(cur)

    return change(get_store(), match_id, key, judge, what)


def _controlled(cur: Settled, kind: str, seat: int | None = None, ms: int = 0) -> Change:
    done = referee.control(GAMES[cur.meta.game], cur.meta, cur.live, kind, cur.now, seat, ms)
    return Change(done.live, [done.entry], [], done.answer)


@bp.post("/matches/<match_id>/start")
def start_clock(match_id: str) -> Any:
    """The umpire starts the clocks of a match that waits for the start (``clock.start``: ``umpire``
    or ``first_move``): the seat to move gets a whole turn from now.  409 ``already_started`` after it."""

    def act(cur: Settled) -> Change:
        _ongoing(cur)
        if cur.live.clock.started:
            raise ApiError("already_started", "The clocks have started already.")
        return _controlled(cur, "start")

    return _umpire_change(match_id, "the start", act)


@bp.post("/matches/<match_id>/pause")
def pause_clock(match_id: str) -> Any:
    """The umpire pauses the running clocks: no deadline, no flag, no moves (409 ``paused``) until resumed."""

    def act(cur: Settled) -> Change:
        _ongoing(cur)
        clock = cur.live.clock
        if not clock.started:
            raise ApiError("not_started", "The clocks have not started: there is nothing to pause.")
        if clock.paused:
            raise ApiError("already_paused", "The clocks are paused already.")
        return _controlled(cur, "pause")

    return _umpire_change(match_id, "the pause", act)


@bp.post("/matches/<match_id>/resume")
def resume_clock(match_id: str) -> Any:
    """The umpire resumes paused clocks: the turn has exactly the time it had at the pause."""

    def act(cur: Settled) -> Change:
        _ongoing(cur)
        clock = cur.live.clock
        if not clock.started:
            raise ApiError("not_started", "The clocks have not started: start them (POST .../start).")
        if not clock.paused:
            raise ApiError("not_paused", "The clocks are not paused.")
        return _controlled(cur, "resume")

    return _umpire_change(match_id, "the resumption", act)


@bp.post("/matches/<match_id>/add-time")
def add_time(match_id: str) -> Any:
    """The umpire gives a seat time (``{"seat", "seconds"}``: 0.001 to 3600 s, kept to the
    millisecond) in its bank; when its turn runs its deadline moves by as much.  With an
    ``Idempotency-Key`` a repeat gives the time once and answers the match as it is."""
    idem = _idempotency_key()
    body, body_error = _body(schemas.add_time_request)
    key = None if idem is None else f"a:{idem}"

    def act(cur: Settled) -> Change | Answer:
        if body is None:
            assert body_error is not None
            raise body_error
        ms = round(body["seconds"] * 1000)
        digest = move_digest([body["seat"], ms])
        if cur.pointer is not None:  # this key gave time already: the match as it is, the time given once
            if cur.pointer != digest:
                message = "This Idempotency-Key was used for another gift of time."
                raise ApiError("idempotency_key_reused", message, {"header": "Idempotency-Key"})
            now = {**match_view(cur.meta, cur.live, cur.now), "events": [], "announcements": []}  # nothing happened now
            return json_text(200, now, replayed=True)
        _ongoing(cur)
        done = _controlled(cur, "add_time", body["seat"], ms)
        return Change(done.live, done.entries, [] if key is None else [(key, digest)], done.answer)

    return _umpire_change(match_id, "the time given", act, key)


@bp.post("/matches/<match_id>/seats/<seat>/token")
def reissue_token(match_id: str, seat: str) -> Any:
    """The umpire gives a seat a new token (a player lost theirs, or it leaked): answered once;
    the old one gets 401 at once, on every server process.  Each call issues another."""
    if seat not in ("0", "1"):
        raise ApiError("not_found", "A match has seats 0 and 1.")
    number = int(seat)
    token = secrets.token_urlsafe(TOKEN_BYTES)

    def act(cur: Settled) -> Change:
        _ongoing(cur)
        done = referee.control(GAMES[cur.meta.game], cur.meta, cur.live, "token", cur.now, number)
        answer = {"match_id": match_id, "seat": number, "token": token}
        return Change(done.live, [done.entry], [], answer, meta=cur.meta.with_token(number, token_hash(token)))

    return _umpire_change(match_id, "the new token", act)


@bp.post("/matches/<match_id>/abort")
def abort(match_id: str) -> Any:
    """The umpire (the match's umpire token, or the admin token) stops a match: over, with no
    winner; retrying it returns the first answer."""
    return _umpire_change(match_id, "the abort", lambda cur: _end_change("abort", None, cur))


@bp.post("/matches/<match_id>/adjudicate")
def adjudicate(match_id: str) -> Any:
    """The umpire decides the match (``{"winner": 0 | 1 | null, "reason"}``): over, with that
    result; the same decision again returns the first answer."""
    body, body_error = _body(schemas.adjudicate_request)

    def act(cur: Settled) -> Change | Answer:
        if body is None:
            assert body_error is not None
            raise body_error
        game = GAMES[cur.meta.game]
        winner, reason = body["winner"], body["reason"]
        if cur.live.finished:
            return _ended_again(cur, lambda last: last.kind == "adjudicate" and (last.winner, last.reason) == (winner, reason))
        ended = referee.adjudicate(game, cur.meta, cur.live, winner, reason, cur.now)
        return Change(ended.live, [ended.entry], [], ended.answer)

    return _umpire_change(match_id, "the adjudication", act)


def _idempotency_key() -> str | None:
    idem = request.headers.get("Idempotency-Key")
    if idem is not None and not 1 <= len(idem) <= 200:
        raise ApiError("invalid_header", "An Idempotency-Key has 1 to 200 characters.", {"header": "Idempotency-Key"})
    return idem


def _body(schema: Any) -> tuple[dict[str, Any] | None, Exception | None]:
    """The body through ``schema``, or the error to raise once the match and the token are checked (API.md's order)."""
    try:
        return json_body(schema), None
    except (ApiError, ValidationError) as e:
        return None, e


@bp.get("/matches/<match_id>/moves")
def match_record(match_id: str) -> Any:
    """The record: every move, flag, pass, resignation, illegal attempt and
    abort, with the engine's events; the same as text; and as data that
    ``POST /v1/games/{game}/replay`` takes unchanged."""
    fmt = request.args.get("format", "json")
    store = get_store()
    cur = read(store, match_id)
    entries = entries_of(store.record(match_id))
    game = GAMES[cur.meta.game]
    if fmt != "json":  # another site's record format, as the game declares it (engine/room.py records)
        text = record_format(cur.meta.game, fmt).write(
            cur.meta.options, record_moves(entries), [p or "" for p in cur.meta.players]
        )
        return Response(text, mimetype="text/plain")
    steps = list(walk(game, cur.meta, entries))
    state = cur.live.state
    outcome = "*" if state["end"] is None else Outcome(state["winner"], state["end"]).result
    return {
        "match_id": match_id,
        "game": cur.meta.game,
        "options": cur.meta.options,
        "players": list(cur.meta.players),
        "tags": list(cur.meta.tags),
        "illegal": cur.meta.illegal,
        "created": iso(cur.meta.created_ms),
        "status": state["status"],
        "winner": state["winner"],
        "end": state.get("end"),
        "result": outcome,
        "moves": [s.entry.public(s.events) for s in steps],
        "text": record_text(game, cur.meta, cur.live, entries),
        "replay": {"options": cur.meta.options, "moves": record_moves(entries)},
    }


@bp.get("/matches")
def list_matches() -> Any:
    """Matches for an umpire (the admin token): ongoing or finished, newest
    first, by tag or game; ``before`` (the ``next`` of the previous page) pages on."""
    _admin()
    status = request.args.get("status", "ongoing")
    if status not in STATUSES:
        raise ApiError("invalid_query", "status must be ongoing or finished.", {"parameter": "status"})
    tag, game = request.args.get("tag"), request.args.get("game")
    limit = int(_number("limit", 1, LIST_MAX, whole=True) or 50)
    cursor = _cursor(request.args.get("before"))
    store = get_store()
    found: list[dict[str, Any]] = []
    more = False
    for _ in range(20):  # pages of the index until enough match the filters
        fetched = store.listing(status, limit + 1, None if cursor is None else cursor[0])
        rows = [r for r in fetched if _after(r, cursor)]
        for (match_id, at), (meta_text, live_text) in zip(rows, store.metas(m for m, _ in rows), strict=True):
            if len(found) == limit:
                more = True
                break
            cursor = (at, match_id)
            if meta_text is None or live_text is None:
                store.unlist(match_id, status)  # expired
                continue
            meta, live = Meta.from_json(meta_text), Live.from_json(live_text)
            if (tag and tag not in meta.tags) or (game and meta.game != game):
                continue
            found.append(
                {
                    "match_id": match_id,
                    "game": meta.game,
                    "players": list(meta.players),
                    "tags": list(meta.tags),
                    "status": live.state["status"],
                    "winner": live.state["winner"],
                    "end": live.state["end"],
                    "ply": live.ply,
                    "created": iso(meta.created_ms),
                }
            )
        if more or len(fetched) <= limit:  # enough, or the index has no more
            break
    return {"matches": found, "next": f"{cursor[0]}:{cursor[1]}" if more and cursor is not None else None}


def _cursor(raw: str | None) -> tuple[int, str] | None:
    """A page's ``before``: the index time and id of the last match listed."""
    if raw is None:
        return None
    at, _, match_id = raw.partition(":")
    if not at.isdigit() or not match_id or len(raw) > 64:
        raise ApiError("invalid_query", "before is the next of the previous page.", {"parameter": "before"})
    return int(at), match_id


def _after(row: tuple[str, int], cursor: tuple[int, str] | None) -> bool:
    """Whether ``row`` comes after the cursor in the listing's order (newest first, ties by id)."""
    if cursor is None:
        return True
    match_id, at = row
    return at < cursor[0] or (at == cursor[0] and match_id > cursor[1])
