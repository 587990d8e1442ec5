"""The ONE adapter between the Discord channel and the match machinery: every call the channel
makes into service.matches is here, and nowhere else in service/discord/.

Each function calls what the HTTP views call - the compare-and-set loop
(service/matches/changes.py ``change``), the referee's decisions (service/matches/referee.py),
the views' own checks and replays (moves.py ``running_for_moves``, ``replayed``, ``end_change``,
``ended_again``), the answers (answers.py), the match's history (history.py) - and never an HTTP
call to the service itself, nor a copy of a rule or of the loop.  What the views do between
those calls (which seat may move, the checks before a control) is said again here in a few
lines each, commented where it is.  When the move path becomes "decide -> commit -> describe ->
publish", these functions are what to re-point: each returns an :class:`Outcome`, the HTTP
answer the view would have given plus what the change found (the state before, the events),
which service/discord/messages.py ``describe`` writes in Discord's format.

A refusal is raised as the views raise it: an :class:`~service.web.errors.ApiError` with the
view's code and sentence (``not_your_turn``, ``paused``, ``match_finished``...), a store failure
as the store raises it (``Gone``, ``Unconfirmed``, ``redis.RedisError``).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import orjson
from flask import Response

from engine.clock import spec_from
from engine.errors import BadOptions, MoveError
from engine.game import RESERVED, Json
from engine.registry import GAMES, PRESETS, get_game
from service.matches import outbox, referee
from service.matches.answers import match_view
from service.matches.cas import Settled
from service.matches.changes import Answer, Change, change, finished_error, read
from service.matches.db import get_positions, get_store
from service.matches.history import history
from service.matches.keys import new_match_id
from service.matches.match import Meta, move_digest, token_hash
from service.matches.moves import end_change, ended_again, replayed, running_for_moves
from service.matches.record import entries_of
from service.matches.routes import TOKEN_BYTES
from service.matches.store import Gone, Unconfirmed
from service.web import schemas
from service.web.errors import ApiError


class NotAvailable(Exception):
    """The service has no such control yet (a take-back, before issue 35's lands)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """A change judged on a match, or the match as it stands.  ``answer``: the HTTP answer the
    view gives (a verdict, or the match, with its ``state`` and ``clock``), with its ``status``;
    ``before``: the state the change found; ``events``: what happened (the engine's, or the
    refused attempt's); ``move``: the move played, in notation."""

    match_id: str
    answer: Json
    status: int
    before: Json | None
    events: list[Json]
    names: list[str] | None
    move: str | None = None
    replayed: bool = False

    @property
    def state(self) -> Json:
        state: Json = self.answer["state"]
        return state

    @property
    def clock(self) -> Json:
        clock: Json = self.answer["clock"]
        return clock

    @property
    def game(self) -> str:
        return str(self.state["game"])


@dataclass
class _Found:
    """What a judge saw on its last (the committed) reading: filled in by the judge, read after."""

    before: Json | None = None
    events: list[Json] | None = None
    names: list[str] | None = None


def _outcome(match_id: str, answered: Answer, found: _Found) -> Outcome:
    """The view's answer (a Response from ``change``) with what the judge saw."""
    assert isinstance(answered, Response)  # change() answers a Change or a replay as a Response
    answer = orjson.loads(answered.get_data())
    events = found.events if found.events is not None else list(answer.get("events") or [])
    move = answer.get("move") if answer.get("legal") else None
    again = answered.headers.get("Idempotent-Replayed") == "true"
    return Outcome(match_id, answer, answered.status_code, found.before, events, found.names, move, again)


def _changed(match_id: str, key: str | None, what: str, judge: Callable[[Settled, _Found], Change | Answer]) -> Outcome:
    found = _Found()

    def judged(cur: Settled) -> Change | Answer:
        found.before, found.names, found.events = cur.live.state, cur.meta.names, None
        return judge(cur, found)

    return _outcome(match_id, change(get_store(), match_id, key, judged, what), found)


# -- a new match --------------------------------------------------------------------------------


def create(
    game_name: str, options: Json, clock: Any, start: str, names: tuple[str, str], illegal: str, webhooks: list[Json]
) -> Outcome:
    """A new managed match, as ``POST /v1/matches`` makes one (the same schema reads the body, the
    same functions set it up), whose seats' tokens nobody holds: the channel's users play it
    through the binding, and its umpire is the host."""
    body = schemas.match_create_request.load(
        {"game": game_name, "options": options, "clock": clock, "players": list(names), "illegal": illegal,
         "tags": ["discord"], "webhooks": webhooks}
    )  # fmt: skip
    hooks = outbox.check(body["webhooks"])
    game = get_game(body["game"])
    state = game.new(body["options"])
    spec = spec_from(body["clock"], game.default_preset(game.dump(state)["options"]), PRESETS)
    if spec.on_flag == "loses" and game.flag_rule != "loses":  # as routes.create_match refuses it
        raise BadOptions(
            "clock.on_flag", f"In {game.title} a flag is handled by R-X6 (on_flag 'proxy'); it cannot lose the game."
        )
    options = game.replay_options(body["options"], state)
    store = get_store()
    hashes = tuple(token_hash(secrets.token_urlsafe(TOKEN_BYTES)) for _ in range(3))  # held by nobody
    for _ in range(3):
        match_id = new_match_id()
        now = store.now_ms(match_id)
        live = referee.start(game, state, spec, now, start)
        meta = Meta(
            match_id, game.name, options, now, (hashes[0], hashes[1]), spec, names, tuple(body["tags"]), body["illegal"],
            hashes[2], start,
        )  # fmt: skip
        try:
            made = store.create(match_id, meta.to_json(), live.to_json(), live.clock.deadline, now, live.finished)
        except Unconfirmed as e:
            raise e.about("the new match", "Make it again: a match made without its answer expires unused.") from None
        if made:
            break
    else:  # pragma: no cover - 96 random bits clashing three times
        raise ApiError("unavailable", "Could not find a free match id; try again.")
    if hooks:
        outbox.register(store, match_id, hooks, live.finished)
    get_positions().put(match_id, "0", state)
    answer = {"match_id": match_id, **match_view(meta, live, now)}
    return Outcome(match_id, answer, 201, None, [], meta.names)


# -- reading ------------------------------------------------------------------------------------


def look(match_id: str) -> Outcome:
    """The match now, with the change that led to it (``GET .../post``'s position: history.py)."""
    h = history(get_store(), match_id, None)
    move = h.move if h.move is not None and h.move.split()[0] not in RESERVED else None
    answer = {"match_id": match_id, "game": h.game, "state": h.state, "clock": h.clock, "ply": h.state["ply"]}
    return Outcome(match_id, answer, 200, h.before, list(h.events), None if h.players is None else list(h.players), move)


def ongoing(match_id: str) -> bool:
    """Whether the match is there (not expired) and not over."""
    try:
        return not read(get_store(), match_id).live.finished
    except Gone:
        return False


def may_move(match_id: str) -> int | None:
    """The seat that may move now (None once the match is over)."""
    return read(get_store(), match_id).live.may_move


def next_moves(match_id: str, typed: str, most: int) -> list[str]:
    """Up to ``most`` whole or partial moves that begin with what was ``typed``: the legal steps
    after its whole steps (``POST .../legal-moves`` with a ``prefix``), its last step completed."""
    cur = read(get_store(), match_id)
    if cur.live.finished:
        return []
    game = GAMES[cur.meta.game]
    position = get_positions().get(match_id, cur.rev) or game.load(cur.live.state)
    words = game.split_move(typed) if typed.strip() else []
    partial = ""
    try:
        found = game.next_steps(position, words)
    except MoveError:
        if not words:
            return []
        words, partial = words[:-1], words[-1]
        try:
            found = game.next_steps(position, words)
        except MoveError:
            return []
    out = [game.join_steps(found.prefix)] if found.complete and found.prefix and not partial else []
    for step in found.steps:
        if step.lower().startswith(partial.lower()):
            out.append(game.join_steps([*found.prefix, step]))
        if len(out) >= most:
            break
    return out


# -- a seat's changes ---------------------------------------------------------------------------


def move(match_id: str, seat: int, text: str, key: str) -> Outcome:
    """``seat`` plays ``text`` now, under the idempotency key ``key`` (the interaction's id): as
    ``POST .../moves`` judges it, for the match's ply as it is (a command names no ply)."""
    pointer = f"k:{key}"

    def judge(cur: Settled, found: _Found) -> Change | Answer:
        live, meta = cur.live, cur.meta
        digest = move_digest(text)
        if cur.pointer is not None:  # this key played already: its first answer, for this same move
            ply, first_seat, first_digest = cur.pointer.split(" ")
            if int(first_seat) != seat or first_digest != digest:
                raise ApiError(
                    "idempotency_key_reused", "This Idempotency-Key was used for another move.", {"header": "Idempotency-Key"}
                )
            first = replayed(get_store(), cur, seat, int(ply), text)
            if first is not None:
                return first
        if live.finished:
            raise finished_error(live)
        running_for_moves(meta, live)
        if seat != live.may_move:  # as moves.submit_move says it
            message = "It is not this seat's turn."
            if live.clock.proxy:
                message = "This seat has flagged: only the opponent may move for it now (R-X6)."
            raise ApiError("not_your_turn", message, {"may_move": live.may_move, "proxy": live.clock.proxy})
        game = GAMES[meta.game]
        position = get_positions().get(match_id, cur.rev)
        result = referee.judge(game, meta, live, seat, text, cur.now, position)
        pointers = [(pointer, f"{live.ply} {seat} {digest}")]
        if isinstance(result, referee.Accepted):
            found.events = result.events
            return Change(result.live, [result.entry], pointers, result.answer, 200, result.position, "accepted")
        if isinstance(result, referee.Forfeit):
            found.events = result.events
            return Change(result.live, [result.entry], pointers, result.answer, 422, verdict="forfeit")
        # the refused attempt's event, as referee.judge announces it
        found.events = [{"type": "illegal", "player": seat, "move": text, **(result.entry.error or {})}]
        return Change(live, [result.entry], [], result.answer, 422, verdict="illegal")

    return _changed(match_id, pointer, "this move", judge)


def resign(match_id: str, seat: int) -> Outcome:
    """``seat`` resigns (``POST .../resign``); the same again answers the first answer."""
    return _changed(match_id, None, "the resignation", lambda cur, _: end_change("resign", seat, cur))


# -- the umpire's controls ----------------------------------------------------------------------


def _ongoing(cur: Settled) -> None:
    if cur.live.finished:
        raise finished_error(cur.live)


def _control(cur: Settled, kind: str, seat: int | None = None, ms: int = 0) -> Change:
    done = referee.control(GAMES[cur.meta.game], cur.meta, cur.live, kind, cur.now, seat, ms)
    return Change(done.live, [done.entry], [], done.answer)


def start(match_id: str) -> Outcome:
    """The host starts the clocks (``POST .../start``; its checks)."""

    def judge(cur: Settled, found: _Found) -> Change:
        _ongoing(cur)
        if cur.live.clock.started:
            raise ApiError("already_started", "The clocks have started already.")
        return _control(cur, "start")

    return _changed(match_id, None, "the start", judge)


def pause(match_id: str) -> Outcome:
    """The host pauses the running clocks (``POST .../pause``; its checks)."""

    def judge(cur: Settled, found: _Found) -> Change:
        _ongoing(cur)
        if not cur.live.clock.started:
            raise ApiError("not_started", "The clocks have not started: there is nothing to pause.")
        if cur.live.clock.paused:
            raise ApiError("already_paused", "The clocks are paused already.")
        return _control(cur, "pause")

    return _changed(match_id, None, "the pause", judge)


def resume(match_id: str) -> Outcome:
    """The host resumes paused clocks (``POST .../resume``; its checks)."""

    def judge(cur: Settled, found: _Found) -> Change:
        _ongoing(cur)
        if not cur.live.clock.started:
            raise ApiError("not_started", "The clocks have not started: start them (/umpire start).")
        if not cur.live.clock.paused:
            raise ApiError("not_paused", "The clocks are not paused.")
        return _control(cur, "resume")

    return _changed(match_id, None, "the resumption", judge)


def add_time(match_id: str, seat: int, seconds: float, key: str) -> Outcome:
    """The host gives ``seat`` time in its bank (``POST .../add-time``, ``key`` its Idempotency-Key)."""
    body = schemas.add_time_request.load({"seat": seat, "seconds": seconds})
    ms = round(body["seconds"] * 1000)
    pointer, digest = f"a:{key}", move_digest([seat, ms])

    def judge(cur: Settled, found: _Found) -> Change | Answer:
        if cur.pointer is not None:  # given already: the match as it is (controls.add_time)
            if cur.pointer != digest:
                raise ApiError("idempotency_key_reused", "This Idempotency-Key was used for another gift of time.")
            return Response(orjson.dumps({**match_view(cur.meta, cur.live, cur.now), "events": [], "announcements": []}),
                            headers={"Idempotent-Replayed": "true"})  # fmt: skip
        _ongoing(cur)
        made = _control(cur, "add_time", seat, ms)
        return replace(made, pointers=[(pointer, digest)])

    return _changed(match_id, pointer, "the time given", judge)


def hand_seat(match_id: str, seat: int, name: str) -> Outcome:
    """The host hands ``seat`` to another player, named ``name``: as ``POST .../seats/{seat}/token``
    (the record keeps it, and a new token nobody holds replaces the seat's), the seat's name
    changed too, so that the posts name who plays it now."""
    schemas.match_create_request.load({"game": "x", "players": [name, name]})  # a name as the API takes it

    def judge(cur: Settled, found: _Found) -> Change:
        _ongoing(cur)
        done = referee.control(GAMES[cur.meta.game], cur.meta, cur.live, "token", cur.now, seat)
        players = (name, cur.meta.players[1]) if seat == 0 else (cur.meta.players[0], name)
        meta = replace(cur.meta.with_token(seat, token_hash(secrets.token_urlsafe(TOKEN_BYTES))), players=players)
        return Change(done.live, [done.entry], [], done.answer, meta=meta)

    return _changed(match_id, None, "the seat handed over", judge)


def abort(match_id: str) -> Outcome:
    """The host stops the match, no winner (``POST .../abort``); the same again answers the first answer."""
    return _changed(match_id, None, "the abort", lambda cur, _: end_change("abort", None, cur))


def adjudicate(match_id: str, winner: int | None, reason: str) -> Outcome:
    """The host decides the match (``POST .../adjudicate``); the same decision again answers the first answer."""
    body = schemas.adjudicate_request.load({"winner": winner, "reason": reason})

    def judge(cur: Settled, found: _Found) -> Change | Answer:
        if cur.live.finished:
            same = (body["winner"], body["reason"])
            return ended_again(cur, lambda last: last.kind == "adjudicate" and (last.winner, last.reason) == same)
        ended = referee.adjudicate(GAMES[cur.meta.game], cur.meta, cur.live, body["winner"], body["reason"], cur.now)
        return Change(ended.live, [ended.entry], [], ended.answer)

    return _changed(match_id, None, "the adjudication", judge)


def take_back(match_id: str) -> Outcome:
    """The host takes back the last move (issue 35).  What this expects of the service, once it
    has it: ``referee.take_back(game, meta, live, entries, now)`` returning a
    ``referee.Controlled`` - the live part one move earlier with the clocks as they were before
    that move, the record's ``takeback`` entry, its events and the answer (the match as ``GET``
    gives it) - and the same checks as ``POST .../takeback`` (409 when there is no move to take
    back).  Until then, :class:`NotAvailable`."""
    taker = getattr(referee, "take_back", None)
    if taker is None:
        raise NotAvailable("Taking back a move is not available on this server yet.")

    def judge(cur: Settled, found: _Found) -> Change:  # pragma: no cover - the service has no take-back yet
        _ongoing(cur)
        done = taker(GAMES[cur.meta.game], cur.meta, cur.live, entries_of(get_store().record(match_id)), cur.now)
        return Change(done.live, [done.entry], [], done.answer)

    return _changed(match_id, None, "the take-back", judge)
