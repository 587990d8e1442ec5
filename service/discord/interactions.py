"""``POST /v1/discord/interactions``: Discord's Interactions Endpoint URL (issue 36).

In this order: the signature is checked before anything is read (``401 invalid_signature``,
``401 stale_interaction``: service/discord/signature.py); a ``PING`` is answered ``PONG``; an
interaction id already let through is ``409 interaction_replayed`` (a command never plays twice,
and the move it carried has the interaction's id as its idempotency key besides); then the
command is judged, on a thread of the ``judging`` lane, and answered within Discord's 3 seconds:

* judged within ``DISCORD_ANSWER_S``: at once (``CHANNEL_MESSAGE_WITH_SOURCE``), the verdict or
  the refusal in words; when the board changed (or was asked for), its picture follows by editing
  that answer (``PATCH /webhooks/{application}/{token}/messages/@original``, multipart, once the
  answer has gone: Werkzeug's ``call_on_close``);
* not judged by then (Redis slow, the match busy): deferred (``DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE``),
  and the answer, picture and all, replaces Discord's "thinking" by the same edit once it is ready,
  sent by the thread that judged it (through a poster, or itself, in words, when none has room);
  a refusal deletes that public "thinking" and follows, ``EPHEMERAL``.

Who may do what, from the match's binding (service/discord/binding.py): the two players move and
resign, each only for their own seat and only on their turn; the host (or holders of the host's
role) has ``/umpire``; ``/board`` is anyone's.  Anyone else's command is refused politely, seen
only by them (``EPHEMERAL``), and changes nothing.  Every call into the match machinery goes
through service/discord/umpire.py.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import wait
from dataclasses import replace
from typing import Any

import orjson
import redis
from flask import Blueprint, Flask, Response, request
from marshmallow import ValidationError

from engine.errors import EngineError
from engine.registry import PRESETS
from service.api import renderer
from service.api.pictures import render_pool
from service.discord import binding, enabled, messages, signature, umpire
from service.discord.binding import Binding
from service.discord.commands import BadInteraction, Command, read
from service.discord.courier import Full, courier
from service.discord.messages import Message, message, position, refusal
from service.matches.db import get_store
from service.matches.store import Gone, Unconfirmed
from service.web.appref import this_app
from service.web.errors import ApiError, flatten_messages

log = logging.getLogger(__name__)

bp = Blueprint("discord", __name__, url_prefix="/v1")

PING, APPLICATION_COMMAND, AUTOCOMPLETE = 1, 2, 4  # Discord's interaction types


class Refusal(Exception):
    """A command that may not be done, in a sentence for the one who sent it."""

    def __init__(self, message: str, ephemeral: bool = True) -> None:
        super().__init__(message)
        self.ephemeral = ephemeral


@bp.post("/discord/interactions")
def interactions() -> Any:
    app = this_app()
    cfg = app.config
    if not enabled(app):
        raise ApiError("not_found", "This server has no Discord application: DISCORD_PUBLIC_KEY is not set.")
    body = request.get_data()
    max_age = float(cfg["DISCORD_MAX_AGE_S"])
    headers = {name: request.headers.get(name, "") for name in (signature.SIGNATURE, signature.TIMESTAMP)}
    signature.check(signature.public_key(str(cfg["DISCORD_PUBLIC_KEY"])), headers, body, time.time(), max_age)
    try:
        sent = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise ApiError("malformed_json", "The interaction is not JSON.") from None
    if not isinstance(sent, dict) or not isinstance(sent.get("type"), int):
        raise ApiError("invalid_interaction", "An interaction is a JSON object with a type.")
    if sent["type"] == PING:
        return {"type": messages.PONG}
    if sent["type"] not in (APPLICATION_COMMAND, AUTOCOMPLETE):
        raise ApiError("invalid_interaction", f"This service reads slash commands, not interactions of type {sent['type']}.")
    try:
        command = read(sent)
    except BadInteraction as e:
        raise ApiError("invalid_interaction", f"The interaction cannot be read: {e}.") from None
    if command.kind == AUTOCOMPLETE:  # never plays: a repeat is only answered again
        return messages.choices(_suggest(command))
    if not binding.first_time(get_store(), command.id, 2 * max_age):
        raise ApiError("interaction_replayed", "This interaction was answered already: it is never played twice.")
    return _answer(app, command)


# -- answering within the 3 seconds ----------------------------------------------------------------


def _answer(app: Flask, command: Command) -> Response:
    lanes = courier(app)
    turn = _Turn()
    try:
        judged = lanes.judging.submit(lambda: _judge(app, command, turn))
    except Full:
        return _json(messages.response(refusal("The umpire is busy: send the command again in a moment.")))
    answer_s = float(app.config["DISCORD_ANSWER_S"])
    if answer_s > 0:  # 0: every command deferred, however quickly it was judged
        wait([judged], timeout=answer_s)
    said = turn.answered_now()
    if said is None:  # its judging thread sends the answer once it is judged
        return _json(messages.deferred())
    resp = _json(messages.response(said))
    if said.picture is not None:  # once the answer has gone: the picture edits it
        resp.call_on_close(lambda: _post(app, lambda: _picture(app, command.token, said), "an answer goes without its picture"))
    return resp


class _Turn:
    """Who sends a command's answer: the request, when the command is judged within
    ``DISCORD_ANSWER_S``; else the thread that judged it, once it is (a deferred answer).
    Decided once, under a lock: never both, never neither."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.said: Message | None = None
        self.deferred = False

    def answered_now(self) -> Message | None:
        """The answer, when the command is judged by now; None: it is deferred."""
        with self.lock:
            self.deferred = self.said is None
            return self.said

    def judged(self, said: Message) -> bool:
        """The command is judged: True when it was deferred, and this thread is to send ``said``."""
        with self.lock:
            self.said = said
            return self.deferred


def _json(value: dict[str, Any]) -> Response:
    return Response(orjson.dumps(value), mimetype="application/json")


def _judge(app: Flask, command: Command, turn: _Turn) -> None:
    """The judging lane's job: the command judged, and its answer sent from here if it was deferred.
    A deferred answer's words are never dropped: when no poster has room (a slow Discord), this
    thread edits them in itself, without the picture, within ``DISCORD_TIMEOUT_S``; it holds its
    place in the judging lane meanwhile, so that more commands are refused "busy" at once rather
    than deferred with nobody to answer them."""
    try:
        said = _judged(app, command)
    except Exception:  # _judged answers every failure in words: this is a bug
        log.exception("discord: a command failed")
        said = refusal("The umpire failed to answer; the failure has been logged.", ephemeral=False)
    if not turn.judged(said):
        return
    if not _post(app, lambda: _late(app, command.token, said, draw=True), "a deferred answer is sent from its judging thread"):
        _late(app, command.token, said, draw=False)


def _post(app: Flask, job: Callable[[], None], unsent: str) -> bool:
    """``job`` on the posting lane; False (and ``unsent`` logged) when the lane has no room."""
    try:
        courier(app).posting.submit(job)
    except Full:
        log.warning("discord: every poster is busy; %s", unsent)
        return False
    return True


def _picture(app: Flask, token: str, said: Message) -> None:
    """The picture of an answer given at once, edited into it (the words stand without it)."""
    with app.app_context():
        picture = _draw(app, said)
        if picture is not None:
            courier(app).edit_original(token, messages.edit(said, True), picture)


def _late(app: Flask, token: str, said: Message, draw: bool) -> None:
    """A deferred answer edited in, its picture with it when ``draw``; a ping that an edit cannot
    make (edits never notify) follows as a message of its own.

    Discord made the answer public at the deferral, and an edit (or a first follow-up) cannot
    make it private: a refusal, seen only by its sender, deletes that public "thinking"
    (``DELETE .../messages/@original``) and follows it, flagged ``EPHEMERAL``.  Should the delete
    fail, the refusal is edited in rather than the sender left with "thinking" for ever."""
    with app.app_context():
        lanes = courier(app)
        if said.ephemeral and lanes.delete_original(token).ok:
            lanes.follow_up(token, messages.follow_up(said))
            return
        picture = _draw(app, said) if draw else None
        lanes.edit_original(token, messages.edit(said.quiet(), picture is not None), picture)
        if said.ping:
            lanes.follow_up(token, messages.ping(said))


def _draw(app: Flask, said: Message) -> bytes | None:
    """The board's PNG (None when the answer has none, or no renderer took it in time)."""
    if said.picture is None:
        return None
    svg = said.picture()
    until = time.monotonic() + float(app.config["DISCORD_TIMEOUT_S"])
    while True:
        try:
            return render_pool(app).render(svg, None)
        except renderer.Busy:
            if time.monotonic() > until:
                log.warning("discord: no renderer was free; an answer goes without its picture")
                return None
            time.sleep(0.2)


def _judged(app: Flask, command: Command) -> Message:
    """The command's answer, every failure said in words."""
    with app.app_context():
        try:
            answer = HANDLERS[command.path](command)
            if answer.told is not None and not answer.ephemeral:
                binding.told(get_store(), *answer.told)
            return answer
        except KeyError:
            return refusal(f"This service has no command /{' '.join(command.path)}: register its commands again.")
        except Refusal as r:
            return refusal(str(r), r.ephemeral)
        except ApiError as e:
            return _refused(command, e)
        except ValidationError as e:
            fields = flatten_messages(e.normalized_messages())  # type: ignore[no-untyped-call]
            where, said = next(iter(fields.items()))
            return refusal(f"{where}: {said[0]}")
        except EngineError as e:
            return refusal(e.message)
        except Gone:
            return refusal("That match is no longer kept (it expired).")
        except Unconfirmed:
            return refusal("The match store did not confirm this change: look at /board before sending it again.", False)
        except redis.RedisError:
            return refusal("The match store is not answering; try again shortly.")


def _refused(command: Command, e: ApiError) -> Message:
    """A refusal as a player in the channel reads it: the operation's own sentence, but for a move out
    of turn (whose turn it is, by a mention, which never pings) and an end (that the match is over, and
    how it ended), which the channel tells with what it knows; the API's sentences stay the API's."""
    if e.code == "not_your_turn":
        details = e.details or {}
        return Message(
            messages.not_your_turn(_bound(command), details.get("may_move"), bool(details.get("proxy"))), ephemeral=True
        )
    if e.code == "match_finished":
        return refusal(messages.over(umpire.look(_bound(command).match_id)))
    return refusal(e.message)


# -- the commands ---------------------------------------------------------------------------------


def _bound(command: Command) -> Binding:
    """The match the command is about (its ``match`` option, else the channel's latest), which must be this channel's."""
    store = get_store()
    match_id = command.text("match") or binding.of_channel(store, command.channel)
    if not match_id:
        raise Refusal("There is no match in this channel: its host starts one with /match new.")
    found = binding.load(store, match_id)
    if found is None or found.channel != command.channel:
        raise Refusal(f"There is no match {match_id} in this channel.")
    binding.keep(store, found)
    return found


def _player(command: Command, b: Binding) -> int:
    """The seat of the player who sent the command (the seat to move, for one who holds both)."""
    held = [s for s in (0, 1) if b.seats[s] == command.user]
    if not held:
        raise Refusal("You do not play in this match: only its two players move or resign here. /board shows it.")
    if len(held) == 2:
        return umpire.may_move(b.match_id) or 0
    return held[0]


def _host(command: Command) -> Binding:
    b = _bound(command)
    if not b.is_host(command.user, command.roles):
        raise Refusal("Only the match's host, or holders of the role the host named, may use /umpire.")
    return b


def _json_option(raw: str | None, name: str) -> Any:
    if raw is None:
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise Refusal(f"{name} must be JSON: {raw[:100]}") from None


def new_match(command: Command) -> Message:
    store = get_store()
    current = binding.of_channel(store, command.channel)
    if current is not None and umpire.ongoing(current):
        raise Refusal(f"This channel's match {current} is still on: it ends (or its host aborts it) before another starts.")
    options = _json_option(command.text("options"), "options") or {}
    if not isinstance(options, dict):
        raise Refusal('options must be a JSON object, as the game\'s options: {"size": 5}.')
    clock_text = command.text("clock")
    clock = _json_option(clock_text, "clock") if clock_text and clock_text.startswith("{") else clock_text or None
    players = [str(command.options.get("player1")), str(command.options.get("player2"))]
    first = command.text("first") or "player1"
    swapped = first == "player2" or (first == "random" and secrets.randbelow(2) == 1)
    if swapped:
        players.reverse()
    names = (command.names.get(players[0], players[0]), command.names.get(players[1], players[1]))
    webhook = command.text("webhook")
    start = command.text("start") or "umpire"
    match_id = umpire.create(
        str(command.text("game")), options, clock, start, names, command.text("illegal") or "reject",
        webhook,
    )  # fmt: skip
    role = command.options.get("role")
    b = Binding(
        match_id, command.guild, command.channel, (players[0], players[1]), command.user,
        role if isinstance(role, str) else None, command.options.get("ping") is True, 1 if swapped else 0, bool(webhook),
    )  # fmt: skip
    binding.save(store, b)
    when = {"umpire": "The clocks start at /umpire start.", "first_move": "The clocks start with the first move."}
    shown = umpire.look(match_id)
    note = f"{messages.match_line(b, shown.players)}\n{when.get(start, 'The clocks run.')}"
    return position(shown, b, note, started=True)


def play(command: Command) -> Message:
    b = _bound(command)
    seat = _player(command, b)
    text = command.text("move")
    if not text:
        raise Refusal("Name your move: /move move:<your move>.")
    try:
        return message(umpire.move(b.match_id, seat, text, f"discord:{command.id}"), b)
    except ApiError as e:
        return _over(b, e)


def _over(b: Binding, e: ApiError) -> Message:
    """A move or a resignation refused because the match is over, said with how it ended (the final
    position's post: who won, and why: a flag, R-T1); in public when the channel hears of that end
    here first (a flag, with no webhook to post it and nobody asking /board), else only to the sender."""
    if e.code != "match_finished":
        raise e
    shown = position(umpire.look(b.match_id), b)
    shown = replace(shown, content=messages.fit("The match is over.\n", shown.content))  # how it ended: the post's result
    first = binding.told(get_store(), b.match_id, True) and not b.webhook
    return shown if first else replace(shown, ephemeral=True, told=None)


def board(command: Command) -> Message:
    b = _bound(command)
    shown = umpire.look(b.match_id)
    return position(shown, b, messages.match_line(b, shown.players))


def resign(command: Command) -> Message:
    b = _bound(command)
    seat = _player(command, b)
    try:
        return message(umpire.resign(b.match_id, seat), b)
    except ApiError as e:
        return _over(b, e)


def umpire_start(command: Command) -> Message:
    b = _host(command)
    return message(umpire.start(b.match_id), b)


def umpire_pause(command: Command) -> Message:
    b = _host(command)
    return message(umpire.pause(b.match_id, command.text("reason") or ""), b)


def umpire_resume(command: Command) -> Message:
    b = _host(command)
    return message(umpire.resume(b.match_id), b)


def umpire_addtime(command: Command) -> Message:
    b = _host(command)
    seat = b.seat_of(str(command.options.get("player")))
    if seat is None:
        raise Refusal("That user plays no seat of this match.")
    seconds = command.options.get("seconds")
    if not isinstance(seconds, int | float) or isinstance(seconds, bool):
        raise Refusal("seconds is a number, from 0.001 to 3600.")
    given = umpire.add_time(b.match_id, seat, float(seconds), f"discord:{command.id}")
    if given is None:  # this very interaction gave it already
        return refusal("That time was given already: nothing changed.", ephemeral=False)
    return message(given, b)


def umpire_takeback(command: Command) -> Message:
    b = _host(command)
    current = binding.of_channel(get_store(), b.channel)
    if current not in (None, b.match_id) and umpire.ongoing(current) and not umpire.ongoing(b.match_id):
        raise Refusal(
            f"This channel's match {current} is on: a take-back may not reopen match {b.match_id} beside it "
            "(a channel has one match on at a time)."
        )
    return message(umpire.take_back(b.match_id, f"discord:{command.id}"), b)


def umpire_adjudicate(command: Command) -> Message:
    b = _host(command)
    winner = b.named(command.text("result") or "")  # None: a draw
    return message(umpire.adjudicate(b.match_id, winner, command.text("reason") or ""), b)


def umpire_abort(command: Command) -> Message:
    b = _host(command)
    return message(umpire.abort(b.match_id), b)


def umpire_seat(command: Command) -> Message:
    b = _host(command)
    seat, user = command.options.get("seat"), str(command.options.get("player"))
    if seat not in (0, 1):
        raise Refusal("seat is 0 or 1.")
    done = umpire.hand_seat(b.match_id, seat, command.names.get(user, user))
    seats = (user, b.seats[1]) if seat == 0 else (b.seats[0], user)
    handed = replace(b, seats=seats)
    binding.update(get_store(), handed)
    return message(done, handed, messages.seat_line(handed, done.meta.names))


def umpire_ping(command: Command) -> Message:
    b = _host(command)
    on = command.options.get("on") is True
    binding.update(get_store(), replace(b, ping=on))
    return refusal("The player to move is pinged from now on." if on else "Nobody is pinged from now on.", ephemeral=False)


def umpire_role(command: Command) -> Message:
    b = _host(command)
    role = command.options.get("role")
    named = role if isinstance(role, str) else None
    binding.update(get_store(), replace(b, role=named))
    if named is None:
        return refusal("Only the host may use /umpire from now on.", ephemeral=False)
    return Message(f"Holders of <@&{named}> may use /umpire too.", ephemeral=False)


HANDLERS: dict[tuple[str, ...], Callable[[Command], Message]] = {
    ("match", "new"): new_match,
    ("move",): play,
    ("board",): board,
    ("resign",): resign,
    ("umpire", "start"): umpire_start,
    ("umpire", "pause"): umpire_pause,
    ("umpire", "resume"): umpire_resume,
    ("umpire", "addtime"): umpire_addtime,
    ("umpire", "takeback"): umpire_takeback,
    ("umpire", "adjudicate"): umpire_adjudicate,
    ("umpire", "abort"): umpire_abort,
    ("umpire", "seat"): umpire_seat,
    ("umpire", "ping"): umpire_ping,
    ("umpire", "role"): umpire_role,
}


# -- autocomplete ---------------------------------------------------------------------------------


def _suggest(command: Command) -> list[str]:
    """Choices for the option being typed: the legal moves that begin with it, or clock presets."""
    typed = str(command.options.get(command.focused or "") or "")
    try:
        if command.focused == "move":
            return umpire.next_moves(_bound(command).match_id, typed, 25)
        if command.focused == "clock":
            game = command.text("game") or ""
            names = sorted(PRESETS, key=lambda n: (not n.startswith(game), n))
            return [n for n in names if typed.lower() in n.lower()][:25]
    except (Refusal, Gone, redis.RedisError):
        return []
    return []
